"""Checks packaging/conan/conanfile.py without Conan (it cannot be installed
here): a stand-in `conan` package records what the recipe does, the recipe
runs through Conan's steps for several configurations, and its exported
sources are configured for real with the CMake variables it generates.

    python3 conan_recipe.py SOURCE_DIR VERSION WORK CMAKE GENERATOR
"""
import fnmatch
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import types

SOURCE_DIR, VERSION, WORK, CMAKE, GENERATOR = sys.argv[1:6]
RECIPE_DIR = os.path.join(SOURCE_DIR, "packaging", "conan")
calls = []


# ---- the stand-in conan package ---------------------------------------------------
class Namespace:
    """settings / options: attribute bags that support del and rm_safe."""

    def __init__(self, **values):
        self.__dict__.update(values)

    def rm_safe(self, name):
        self.__dict__.pop(name, None)

    def __contains__(self, name):
        return name in self.__dict__


class CppInfo:
    def __init__(self):
        self.libs, self.defines, self.system_libs = [], [], []
        self.properties = {}

    def set_property(self, name, value):
        self.properties[name] = value

    def get_property(self, name):
        return self.properties.get(name)


class ConanFile:
    pass


class ConanInvalidConfiguration(Exception):
    pass


class CMakeToolchain:
    def __init__(self, conanfile):
        self.variables, self.cache_variables = {}, {}
        conanfile.toolchain = self

    def generate(self):
        calls.append("CMakeToolchain.generate")


class CMakeDeps:
    def __init__(self, conanfile):
        pass

    def generate(self):
        calls.append("CMakeDeps.generate")


class CMake:
    def __init__(self, conanfile):
        pass

    def configure(self, **kwargs):
        calls.append("CMake.configure")

    def build(self, **kwargs):
        calls.append("CMake.build")

    def install(self, **kwargs):
        calls.append("CMake.install")


def cmake_layout(conanfile, **kwargs):
    calls.append("cmake_layout")


def copy(conanfile, pattern, src, dst, excludes=None, keep_path=True):
    """Conan's copy: fnmatch on paths relative to src (* crosses folders)."""
    copied = []
    for folder, _, files in os.walk(src):
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), src)
            if not fnmatch.fnmatch(rel, pattern):
                continue
            if excludes and any(fnmatch.fnmatch(rel, e) for e in excludes):
                continue
            target = os.path.join(dst, rel if keep_path else name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.join(folder, name), target)
            copied.append(rel)
    calls.append(("copy", pattern, len(copied)))
    return copied


def rmdir(conanfile, path):
    calls.append(("rmdir", path))
    shutil.rmtree(path, ignore_errors=True)


def check_min_cppstd(conanfile, cppstd):
    calls.append(("check_min_cppstd", str(cppstd)))


def stdcpp_library(conanfile):
    libcxx = getattr(conanfile.settings, "compiler_libcxx", None)
    return {"libstdc++": "stdc++", "libstdc++11": "stdc++", "libc++": "c++"}.get(libcxx)


def can_run(conanfile):
    return True


def install_stub():
    modules = {
        "conan": {"ConanFile": ConanFile},
        "conan.errors": {"ConanInvalidConfiguration": ConanInvalidConfiguration},
        "conan.tools": {},
        "conan.tools.build": {"check_min_cppstd": check_min_cppstd,
                              "stdcpp_library": stdcpp_library, "can_run": can_run},
        "conan.tools.cmake": {"CMake": CMake, "CMakeDeps": CMakeDeps,
                              "CMakeToolchain": CMakeToolchain, "cmake_layout": cmake_layout},
        "conan.tools.files": {"copy": copy, "rmdir": rmdir},
    }
    for name, attrs in modules.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        module.__path__ = []
        sys.modules[name] = module


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recipes = [v for v in vars(module).values()
               if isinstance(v, type) and issubclass(v, ConanFile) and v is not ConanFile]
    assert len(recipes) == 1, f"{path}: expected one ConanFile class, found {recipes}"
    return recipes[0]


def instance(recipe, os_name="Linux", libcxx="libstdc++11", **options):
    conanfile = recipe()
    conanfile.settings = Namespace(os=os_name, arch="x86_64", compiler="gcc",
                                   build_type="Release", compiler_libcxx=libcxx)
    values = dict(getattr(recipe, "default_options", {}))
    values.update(options)
    conanfile.options = Namespace(**values)
    conanfile.cpp_info = CppInfo()
    conanfile.recipe_folder = RECIPE_DIR
    conanfile.source_folder = SOURCE_DIR
    conanfile.package_folder = os.path.join(WORK, "package")
    conanfile.export_sources_folder = os.path.join(WORK, "export")
    conanfile.tested_reference_str = "libllm/" + VERSION
    return conanfile


def declared_cmake_options():
    """Options declared in cmake/*.cmake and any CMakeLists.txt outside build trees."""
    names = {"BUILD_SHARED_LIBS"}
    files = []
    for folder, subfolders, names_here in os.walk(SOURCE_DIR):
        subfolders[:] = [d for d in subfolders
                         if not d.startswith((".", "build")) and d != "node_modules"]
        in_cmake = os.path.relpath(folder, SOURCE_DIR) == "cmake"
        files += [os.path.join(folder, f) for f in names_here
                  if f == "CMakeLists.txt" or (in_cmake and f.endswith(".cmake"))]
    for path in files:
        with open(path, encoding="utf-8") as f:
            names.update(re.findall(r"option\(\s*([A-Za-z0-9_]+)", f.read()))
    return names


def main():
    install_stub()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    recipe = load(os.path.join(RECIPE_DIR, "conanfile.py"), "libllm_recipe")

    # Identity and the options Conan users expect.
    assert recipe.version == VERSION, f"conanfile.py version {recipe.version} != {VERSION}"
    assert recipe.package_type == "library"
    assert recipe.license == "MIT", "conanfile.py license differs from LICENSE (MIT)"
    assert set(recipe.settings) == {"os", "arch", "compiler", "build_type"}, recipe.settings
    for option in ("shared", "fPIC"):
        assert recipe.options[option] == [True, False], f"option {option}: {recipe.options}"

    # config_options / configure: no fPIC on Windows or for a shared library.
    c = instance(recipe, os_name="Windows")
    c.config_options()
    assert "fPIC" not in c.options
    c = instance(recipe)
    c.config_options()
    assert "fPIC" in c.options
    c = instance(recipe, shared=True)
    c.config_options()
    c.configure()
    assert "fPIC" not in c.options

    # layout, validate, generate, build, package.
    for shared in (False, True):
        calls.clear()
        c = instance(recipe, shared=shared)
        c.layout()
        c.validate()
        c.generate()
        c.build()
        c.package()
        assert "cmake_layout" in calls, calls
        assert ("check_min_cppstd", "17") in calls, calls
        for step in ("CMakeToolchain.generate", "CMakeDeps.generate", "CMake.configure",
                     "CMake.build", "CMake.install"):
            assert step in calls, f"{step} missing: {calls}"
        assert calls.index("CMake.configure") < calls.index("CMake.build")
        package = c.package_folder
        for sub in ("cmake", "pkgconfig"):
            assert ("rmdir", os.path.join(package, "lib", sub)) in calls, calls
        unknown = set(c.toolchain.cache_variables) - declared_cmake_options()
        assert not unknown, f"generate() sets variables libllm does not declare: {unknown}"
        assert c.toolchain.cache_variables.get("LLM_BUILD_TESTS") is False

    # package_info: the names libllm's own install uses, and what static needs.
    for os_name, libcxx, shared in (("Linux", "libstdc++11", True), ("Linux", "libstdc++11", False),
                                    ("Macos", "libc++", False), ("Windows", None, False),
                                    ("Windows", None, True)):
        c = instance(recipe, os_name=os_name, libcxx=libcxx, shared=shared)
        c.package_info()
        info = c.cpp_info
        where = f"package_info() on {os_name}, shared={shared}"
        assert info.get_property("cmake_file_name") == "llm", where
        assert info.get_property("cmake_target_name") == "llm::llm", where
        assert info.get_property("pkg_config_name") == "llm", where
        assert info.libs == ["llm"], f"{where}: libs {info.libs}"
        if shared:
            assert "LLM_STATIC" not in info.defines, where
            assert not info.system_libs, f"{where}: system_libs {info.system_libs}"
        else:
            assert "LLM_STATIC" in info.defines, where
            expected = {"Linux": {"stdc++", "m", "pthread"}, "Macos": {"c++"}, "Windows": set()}
            assert set(info.system_libs) == expected[os_name], f"{where}: {info.system_libs}"

    # test_package: requires the tested reference, builds with CMake, runs.
    test = load(os.path.join(RECIPE_DIR, "test_package", "conanfile.py"), "libllm_test_package")
    c = instance(test)
    required = []
    c.requires = required.append
    c.requirements()
    assert required == [c.tested_reference_str], required
    calls.clear()
    ran = []
    c.cpp = types.SimpleNamespace(build=types.SimpleNamespace(bindir="bin"))
    c.run = lambda command, env=None: ran.append(command)
    c.layout()
    c.build()
    c.test()
    assert "CMake.build" in calls and ran, (calls, ran)

    # The exported sources alone must configure with the recipe's variables.
    calls.clear()
    c = instance(recipe)
    c.export_sources()
    exported = c.export_sources_folder
    for name in ("CMakeLists.txt", "LICENSE"):
        assert os.path.isfile(os.path.join(exported, name)), f"{name} is not exported"
    c.generate()
    args = [CMAKE, "-S", exported, "-B", os.path.join(WORK, "build"), "-G", GENERATOR,
            "-DBUILD_SHARED_LIBS=OFF"]
    for name, value in c.toolchain.cache_variables.items():
        args.append(f"-D{name}={'ON' if value is True else 'OFF' if value is False else value}")
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"the exported sources do not configure:\n{result.stdout}\n{result.stderr}")
    print(f"conanfile.py {recipe.name}/{recipe.version}: recipe steps, package_info and "
          f"test_package ok; exported sources configure")


if __name__ == "__main__":
    main()
