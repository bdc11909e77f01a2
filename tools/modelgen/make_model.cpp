// llm-make-model: writes model files for tests and benchmarks — random
// weights in a named shape (Qwen2.5-0.5B, llama2.c's stories models, ...)
// or a conversion of a llama2.c checkpoint — as a Hugging Face folder, a
// llama2.c .bin or a GGUF file (gguf_writer.h). Random weights are the same for the same seed
// everywhere.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>

#include "common/error.h"
#include "common/mapped_file.h"
#include "gguf_writer.h"
#include "loaders/loader.h"
#include "model_sources.h"
#include "model_writer.h"

namespace {

[[noreturn]] void usage() {
    std::string shapes;
    for (const std::string &s : llm::gen::shape_names())
        shapes += (shapes.empty() ? "" : ", ") + s;
    std::string gguf_types;
    for (const std::string &s : llm::gen::gguf_type_names())
        gguf_types += (gguf_types.empty() ? "" : "|") + s;
    std::fprintf(
        stderr,
        "usage: llm-make-model (--shape NAME | --from MODEL.bin) --out PATH [options]\n"
        "  --shape NAME           random weights in a named shape: %s\n"
        "  --from MODEL.bin       convert a llama2.c checkpoint instead\n"
        "  -z PATH                the checkpoint's tokenizer.bin (default: beside it)\n"
        "  --out PATH             a folder (hf, created if missing) or a file (llama2c, gguf)\n"
        "  --format hf|llama2c|gguf  output format (default hf)\n"
        "  --gguf-type TYPE       gguf weights: %s (default f32)\n"
        "  --peaked               --shape: peaked weights (qwen2-tiny's scales) instead of\n"
        "                         uniform ones: sharp attention, clear top-1 margins\n"
        "  --name NAME            gguf: general.name\n"
        "  --dtype bf16|f16|f32   hf weight type (default bf16 for --shape, f32 for --from)\n"
        "  --seed N               random seed (default 1)\n"
        "  --shards N             hf: split the weights over N files + an index\n"
        "  --untie                write a separate lm_head (a copy of the embedding)\n"
        "  --tokenizer-from PATH  hf: copy tokenizer.json and tokenizer_config.json from\n"
        "                         folder PATH; llama2c: copy file PATH to tokenizer.bin\n"
        "                         beside the output; gguf: the tokenizer metadata from\n"
        "                         folder PATH's tokenizer.json (or from -z's tokenizer.bin)\n",
        shapes.c_str(), gguf_types.c_str());
    std::exit(2);
}

void copy_file(const std::string &from, const std::string &to) {
    auto in = llm::MappedFile::open(from);
    std::FILE *out = std::fopen(to.c_str(), "wb");
    if (!out) llm::fail(LLM_ERR_IO, to, ": cannot create");
    const bool ok = std::fwrite(in->data(), 1, in->size(), out) == in->size();
    if (std::fclose(out) != 0 || !ok) llm::fail(LLM_ERR_IO, to, ": write failed");
}

std::string basename_of(std::string path) {
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    const size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const size_t dot = name.find_last_of('.');
    return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

} // namespace

int main(int argc, char **argv) {
    std::string shape, from, tokenizer, out, format = "hf", dtype_name, tokenizer_from;
    std::string gguf_type = "f32", name;
    bool peaked = false;
    uint64_t seed = 1;
    int shards = 1;
    bool untie = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--untie")
            untie = true;
        else if (a == "--peaked")
            peaked = true;
        else if (!has_value)
            usage();
        else if (a == "--shape")
            shape = argv[++i];
        else if (a == "--from")
            from = argv[++i];
        else if (a == "-z")
            tokenizer = argv[++i];
        else if (a == "--out")
            out = argv[++i];
        else if (a == "--format")
            format = argv[++i];
        else if (a == "--dtype")
            dtype_name = argv[++i];
        else if (a == "--seed")
            seed = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--shards")
            shards = std::atoi(argv[++i]);
        else if (a == "--gguf-type")
            gguf_type = argv[++i];
        else if (a == "--name")
            name = argv[++i];
        else if (a == "--tokenizer-from")
            tokenizer_from = argv[++i];
        else
            usage();
    }
    if (out.empty() || shape.empty() == from.empty() || shards < 1 ||
        (format != "hf" && format != "llama2c" && format != "gguf"))
        usage();
    llm::DType dtype = from.empty() ? llm::DType::BF16 : llm::DType::F32;
    if (dtype_name == "f32")
        dtype = llm::DType::F32;
    else if (dtype_name == "bf16")
        dtype = llm::DType::BF16;
    else if (dtype_name == "f16")
        dtype = llm::DType::F16;
    else if (!dtype_name.empty())
        usage();

    try {
        std::unique_ptr<llm::Model> source; // a converted model, kept alive while writing
        llm::gen::ModelSpec spec;
        std::vector<llm::gen::TensorSource> tensors;
        if (!shape.empty()) {
            const llm::gen::ModelSpec *s = llm::gen::find_shape(shape);
            if (!s) usage();
            spec = *s;
            spec.tied = !untie;
            tensors = peaked ? llm::gen::peaked_tensors(spec, seed)
                             : llm::gen::random_tensors(spec, seed);
        } else {
            llm::LoadOptions options;
            options.tokenizer_path = tokenizer;
            source = llm::load_model(from, options);
            spec = llm::gen::spec_of(*source, untie);
            tensors = llm::gen::model_tensors(*source, spec);
        }
        if (format == "gguf") {
            llm::gen::GgufWriteOptions options;
            options.type = gguf_type;
            options.name = name.empty() ? (shape.empty() ? basename_of(from) : shape) : name;
            if (!tokenizer_from.empty())
                options.hf_tokenizer_dir = tokenizer_from;
            else if (!from.empty() && source->format == "llama2c")
                options.llama2c_tokenizer =
                    tokenizer.empty() ? llm::path_join(llm::path_dirname(from), "tokenizer.bin")
                                      : tokenizer;
            else if (!tokenizer.empty())
                options.llama2c_tokenizer = tokenizer;
            else if (!from.empty() && source->format == "safetensors")
                options.hf_tokenizer_dir = from;
            llm::gen::write_gguf(out, spec, tensors, options);
        } else if (format == "llama2c") {
            llm::gen::write_llama2c(out, spec, tensors);
            if (!tokenizer_from.empty())
                copy_file(tokenizer_from, llm::path_join(llm::path_dirname(out), "tokenizer.bin"));
        } else {
            if (::mkdir(out.c_str(), 0777) != 0 && errno != EEXIST)
                llm::fail(LLM_ERR_IO, out, ": cannot create folder: ", std::strerror(errno));
            llm::gen::write_hf_folder(out, spec, tensors, {dtype, shards});
            for (const char *name : {"tokenizer.json", "tokenizer_config.json"})
                if (!tokenizer_from.empty())
                    copy_file(llm::path_join(tokenizer_from, name), llm::path_join(out, name));
        }
    } catch (const llm::Error &e) {
        std::fprintf(stderr, "llm-make-model: %s\n", e.what());
        return 1;
    }
    return 0;
}
