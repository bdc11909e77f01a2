// llm-make-model: writes model files for tests and benchmarks — random
// weights in a named shape (Qwen2.5-0.5B, llama2.c's stories models, ...)
// or a conversion of a llama2.c checkpoint — as a Hugging Face folder or a
// llama2.c .bin. Random weights are the same for the same seed everywhere.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>

#include "common/error.h"
#include "common/mapped_file.h"
#include "loaders/loader.h"
#include "model_sources.h"
#include "model_writer.h"

namespace {

[[noreturn]] void usage() {
    std::string shapes;
    for (const std::string &s : llm::gen::shape_names())
        shapes += (shapes.empty() ? "" : ", ") + s;
    std::fprintf(
        stderr,
        "usage: llm-make-model (--shape NAME | --from MODEL.bin) --out PATH [options]\n"
        "  --shape NAME           random weights in a named shape: %s\n"
        "  --from MODEL.bin       convert a llama2.c checkpoint instead\n"
        "  -z PATH                the checkpoint's tokenizer.bin (default: beside it)\n"
        "  --out PATH             a folder (hf, created if missing) or a file (llama2c)\n"
        "  --format hf|llama2c    output format (default hf)\n"
        "  --dtype bf16|f16|f32   hf weight type (default bf16 for --shape, f32 for --from)\n"
        "  --seed N               random seed (default 1)\n"
        "  --shards N             hf: split the weights over N files + an index\n"
        "  --untie                write a separate lm_head (a copy of the embedding)\n"
        "  --tokenizer-from PATH  hf: copy tokenizer.json and tokenizer_config.json from\n"
        "                         folder PATH; llama2c: copy file PATH to tokenizer.bin\n"
        "                         beside the output\n",
        shapes.c_str());
    std::exit(2);
}

void copy_file(const std::string &from, const std::string &to) {
    auto in = llm::MappedFile::open(from);
    std::FILE *out = std::fopen(to.c_str(), "wb");
    if (!out) llm::fail(LLM_ERR_IO, to, ": cannot create");
    const bool ok = std::fwrite(in->data(), 1, in->size(), out) == in->size();
    if (std::fclose(out) != 0 || !ok) llm::fail(LLM_ERR_IO, to, ": write failed");
}

} // namespace

int main(int argc, char **argv) {
    std::string shape, from, tokenizer, out, format = "hf", dtype_name, tokenizer_from;
    uint64_t seed = 1;
    int shards = 1;
    bool untie = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--untie")
            untie = true;
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
        else if (a == "--tokenizer-from")
            tokenizer_from = argv[++i];
        else
            usage();
    }
    if (out.empty() || shape.empty() == from.empty() || shards < 1 ||
        (format != "hf" && format != "llama2c"))
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
            tensors = llm::gen::random_tensors(spec, seed);
        } else {
            llm::LoadOptions options;
            options.tokenizer_path = tokenizer;
            source = llm::load_model(from, options);
            spec = llm::gen::spec_of(*source, untie);
            tensors = llm::gen::model_tensors(*source, spec);
        }
        if (format == "llama2c") {
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
