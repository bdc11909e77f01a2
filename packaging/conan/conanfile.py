"""Conan 2 recipe of libllm.

From a libllm checkout:
    conan create packaging/conan                       # static (the default)
    conan create packaging/conan -o "libllm/*:shared=True"
Consumers get find_package(llm CONFIG REQUIRED) with the target llm::llm
(CMakeDeps) and the pkg-config module llm (PkgConfigDeps).
"""
import os

from conan import ConanFile
from conan.tools.build import check_min_cppstd, stdcpp_library
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, rmdir

required_conan_version = ">=2.0"


class LibllmConan(ConanFile):
    name = "libllm"
    version = "1.5.0"
    description = "Small, fast LLM inference engine behind a stable C ABI"
    license = "MIT"
    topics = ("llm", "inference", "llama", "qwen", "transformer")
    homepage = "https://github.com/OWNER/libllm"
    url = "https://github.com/OWNER/libllm"
    package_type = "library"
    settings = "os", "arch", "compiler", "build_type"
    options = {"shared": [True, False], "fPIC": [True, False], "tools": [True, False]}
    default_options = {"shared": False, "fPIC": True, "tools": False}

    # What the CMake build needs from the libllm tree, relative to its root
    # (this recipe lives in packaging/conan/).
    _sources = ("CMakeLists.txt", "LICENSE", "cmake/*", "include/*", "src/*", "tools/*",
                "bindings/CMakeLists.txt")

    def export_sources(self):
        root = os.path.join(self.recipe_folder, os.pardir, os.pardir)
        for pattern in self._sources:
            copy(self, pattern, src=root, dst=self.export_sources_folder)

    def config_options(self):
        if self.settings.os == "Windows":
            del self.options.fPIC

    def configure(self):
        if self.options.shared:
            self.options.rm_safe("fPIC")

    def layout(self):
        cmake_layout(self)

    def validate(self):
        check_min_cppstd(self, 17)

    def generate(self):
        tc = CMakeToolchain(self)  # BUILD_SHARED_LIBS and PIC follow the options
        tc.cache_variables["LLM_BUILD_TESTS"] = False
        tc.cache_variables["LLM_BUILD_EXAMPLES"] = False
        tc.cache_variables["LLM_BUILD_BINDINGS"] = False
        tc.cache_variables["LLM_BUILD_TOOLS"] = bool(self.options.tools)
        tc.generate()
        CMakeDeps(self).generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        copy(self, "LICENSE", src=self.source_folder,
             dst=os.path.join(self.package_folder, "licenses"))
        cmake = CMake(self)
        cmake.install()
        # Conan writes its own CMake and pkg-config files from package_info().
        rmdir(self, os.path.join(self.package_folder, "lib", "cmake"))
        rmdir(self, os.path.join(self.package_folder, "lib", "pkgconfig"))

    def package_info(self):
        # The names libllm's own install uses: find_package(llm), llm::llm, llm.pc.
        self.cpp_info.set_property("cmake_file_name", "llm")
        self.cpp_info.set_property("cmake_target_name", "llm::llm")
        self.cpp_info.set_property("pkg_config_name", "llm")
        self.cpp_info.libs = ["llm"]
        if not self.options.shared:
            # llm.h must not declare dllimport, and C programs need the C++ runtime.
            self.cpp_info.defines = ["LLM_STATIC"]
            if self.settings.os in ("Linux", "FreeBSD"):
                self.cpp_info.system_libs = ["m", "pthread"]
            libcxx = stdcpp_library(self)
            if libcxx:
                self.cpp_info.system_libs.append(libcxx)
