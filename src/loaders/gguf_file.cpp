#include "loaders/gguf_file.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "common/checked_math.h"
#include "common/error.h"
#include "kernels/quant_blocks.h"

namespace llm {

namespace {

constexpr uint8_t kMagic[4] = {'G', 'G', 'U', 'F'};
constexpr uint64_t kDefaultAlignment = 32;

// Bounds-checked little-endian reads from the file image. `where` says what
// is being read (a key, a tensor) for messages.
class Reader {
  public:
    Reader(const uint8_t *data, size_t size, const std::string &name, size_t pos = 0)
        : data_(data), size_(size), name_(name), pos_(pos) {}

    size_t pos() const { return pos_; }
    size_t remaining() const { return size_ - pos_; }
    const std::string &name() const { return name_; }
    std::string where; // e.g. "key \"general.name\""

    const uint8_t *take(uint64_t n, const char *what) {
        if (n > remaining())
            fail(LLM_ERR_TRUNCATED, name_, ": ", where, where.empty() ? "" : ": ", what,
                 " at byte ", pos_, " needs ", n, " bytes but the file ends at byte ", size_);
        const uint8_t *p = data_ + pos_;
        pos_ += static_cast<size_t>(n);
        return p;
    }
    template <typename T> T scalar(const char *what) {
        T v;
        std::memcpy(&v, take(sizeof v, what), sizeof v); // little-endian hosts only
        return v;
    }
    uint32_t u32(const char *what) { return scalar<uint32_t>(what); }
    uint64_t u64(const char *what) { return scalar<uint64_t>(what); }

    // A string's length, checked against `max` (FORMAT) and the file (TRUNCATED).
    uint64_t string_length(const char *what, uint64_t max) {
        const uint64_t n = u64(what);
        if (n > max)
            fail(LLM_ERR_FORMAT, name_, ": ", where, where.empty() ? "" : ": ", what, " is ", n,
                 " bytes long (at most ", max, " allowed)");
        if (n > remaining())
            fail(LLM_ERR_TRUNCATED, name_, ": ", where, where.empty() ? "" : ": ", what, " of ", n,
                 " bytes at byte ", pos_, " reaches past the end of the ", size_, "-byte file");
        return n;
    }
    std::string string(const char *what, uint64_t max) {
        const uint64_t n = string_length(what, max);
        const uint8_t *p = take(n, what);
        return std::string(reinterpret_cast<const char *>(p), static_cast<size_t>(n));
    }
    void skip_string(const char *what, uint64_t max) { take(string_length(what, max), what); }

    [[noreturn]] void format_error(const std::string &what) const {
        fail(LLM_ERR_FORMAT, name_, ": ", where, where.empty() ? "" : ": ", what);
    }

  private:
    const uint8_t *data_;
    size_t size_;
    const std::string &name_;
    size_t pos_;
};

// The smallest encoding of a value of type t (an array: its type and count).
uint64_t min_value_bytes(GgufType t) {
    switch (t) {
    case GgufType::U8:
    case GgufType::I8:
    case GgufType::BOOL: return 1;
    case GgufType::U16:
    case GgufType::I16: return 2;
    case GgufType::U32:
    case GgufType::I32:
    case GgufType::F32: return 4;
    case GgufType::U64:
    case GgufType::I64:
    case GgufType::F64:
    case GgufType::STRING: return 8;
    case GgufType::ARRAY: return 12;
    }
    return 1;
}

// Bytes of a fixed-size scalar type; 0 for STRING and ARRAY.
uint64_t fixed_value_bytes(GgufType t) {
    return t == GgufType::STRING || t == GgufType::ARRAY ? 0 : min_value_bytes(t);
}

GgufType read_type(Reader &r, const char *what) {
    const uint32_t t = r.u32(what);
    if (t > static_cast<uint32_t>(GgufType::F64))
        r.format_error(std::string("unknown ") + what + " " + std::to_string(t));
    return static_cast<GgufType>(t);
}

void check_bool(Reader &r, uint8_t b) {
    if (b > 1) r.format_error("a bool value is " + std::to_string(b) + " (must be 0 or 1)");
}

// Validates and skips the elements of an array (after its type and count).
void skip_array(Reader &r, GgufType type, uint64_t count, uint32_t depth);

// Reads an array's header, checks its count, skips its elements; returns
// where the elements start.
size_t read_array_header(Reader &r, GgufType &type, uint64_t &count, uint32_t depth) {
    if (depth > GgufLimits::array_depth)
        r.format_error("arrays nest deeper than " + std::to_string(GgufLimits::array_depth) +
                       " levels");
    type = read_type(r, "array element type");
    count = r.u64("array length");
    if (count > GgufLimits::array_count)
        r.format_error("array of " + std::to_string(count) + " elements (at most " +
                       std::to_string(GgufLimits::array_count) + " allowed)");
    const uint64_t min_bytes = count * min_value_bytes(type); // < 2^26 * 12: no overflow
    if (min_bytes > r.remaining())
        fail(LLM_ERR_TRUNCATED, r.name(), ": ", r.where, ": array of ", count, " ",
             gguf_type_name(type), " values needs at least ", min_bytes, " bytes but only ",
             r.remaining(), " remain");
    const size_t start = r.pos();
    skip_array(r, type, count, depth);
    return start;
}

void skip_array(Reader &r, GgufType type, uint64_t count, uint32_t depth) {
    if (type == GgufType::STRING) {
        for (uint64_t i = 0; i < count; ++i)
            r.skip_string("array string", GgufLimits::string_bytes);
    } else if (type == GgufType::ARRAY) {
        for (uint64_t i = 0; i < count; ++i) {
            GgufType inner;
            uint64_t inner_count;
            read_array_header(r, inner, inner_count, depth + 1);
        }
    } else {
        const uint8_t *p = r.take(count * fixed_value_bytes(type), "array elements");
        if (type == GgufType::BOOL)
            for (uint64_t i = 0; i < count; ++i)
                check_bool(r, p[i]);
    }
}

GgufValue read_value(Reader &r, GgufType type) {
    GgufValue v;
    v.type = type;
    switch (type) {
    case GgufType::U8: v.uint_value = r.scalar<uint8_t>("u8 value"); break;
    case GgufType::I8: v.int_value = r.scalar<int8_t>("i8 value"); break;
    case GgufType::U16: v.uint_value = r.scalar<uint16_t>("u16 value"); break;
    case GgufType::I16: v.int_value = r.scalar<int16_t>("i16 value"); break;
    case GgufType::U32: v.uint_value = r.scalar<uint32_t>("u32 value"); break;
    case GgufType::I32: v.int_value = r.scalar<int32_t>("i32 value"); break;
    case GgufType::U64: v.uint_value = r.scalar<uint64_t>("u64 value"); break;
    case GgufType::I64: v.int_value = r.scalar<int64_t>("i64 value"); break;
    case GgufType::F32: v.float_value = r.scalar<float>("f32 value"); break;
    case GgufType::F64: v.float_value = r.scalar<double>("f64 value"); break;
    case GgufType::BOOL:
        v.uint_value = r.scalar<uint8_t>("bool value");
        check_bool(r, static_cast<uint8_t>(v.uint_value));
        break;
    case GgufType::STRING:
        v.string_value = r.string("string value", GgufLimits::string_bytes);
        break;
    case GgufType::ARRAY:
        v.array_offset = read_array_header(r, v.array_type, v.array_count, 1);
        break;
    }
    return v;
}

// Bytes of the data of a tensor of a type libllm reads, `elements` values
// with rows of ne0; false for other types.
bool tensor_bytes(uint32_t type, uint64_t elements, const std::string &what, uint64_t &out) {
    uint64_t block_values = 1, block_bytes = 0;
    switch (type) {
    case ggml_type::F32: block_bytes = 4; break;
    case ggml_type::F16:
    case ggml_type::BF16: block_bytes = 2; break;
    case ggml_type::Q8_0: block_values = 32, block_bytes = kQ8_0FileBytes; break;
    default: {
        DType d;
        if (!ggml_type_dtype(type, d)) return false;
        block_values = static_cast<uint64_t>(dtype_block_values(d));
        block_bytes = block_type_bytes(d);
    }
    }
    out = checked_mul(elements / block_values, block_bytes, what.c_str());
    return true;
}

uint64_t align_up(uint64_t n, uint64_t alignment, const char *what) {
    return checked_add(n, (alignment - n % alignment) % alignment, what);
}

uint64_t alignment_of(const GgufFile &f) {
    const GgufValue *v = f.find("general.alignment");
    if (!v) return kDefaultAlignment;
    if (v->type != GgufType::U32 && v->type != GgufType::U64 && v->type != GgufType::U16 &&
        v->type != GgufType::U8)
        fail(LLM_ERR_FORMAT, f.name, ": general.alignment is a ", gguf_type_name(v->type),
             ", not an unsigned integer");
    const uint64_t a = v->uint_value;
    if (a == 0 || (a & (a - 1)) != 0 || a > GgufLimits::alignment)
        fail(LLM_ERR_FORMAT, f.name, ": general.alignment ", a, " is not a power of two in 1..",
             GgufLimits::alignment);
    return a;
}

GgufTensorInfo read_tensor_info(Reader &r, uint64_t index) {
    GgufTensorInfo t;
    r.where = "tensor info " + std::to_string(index);
    t.name = r.string("tensor name", GgufLimits::tensor_name_bytes);
    if (t.name.empty()) r.format_error("empty tensor name");
    r.where = "tensor \"" + t.name + "\"";
    const uint32_t n_dims = r.u32("dimension count");
    if (n_dims == 0 || n_dims > GgufLimits::dims)
        r.format_error(std::to_string(n_dims) + " dimensions (1.." +
                       std::to_string(GgufLimits::dims) + " allowed)");
    uint64_t elements = 1;
    for (uint32_t i = 0; i < n_dims; ++i) {
        const uint64_t n = r.u64("dimension");
        if (n > static_cast<uint64_t>(INT64_MAX))
            fail(LLM_ERR_BAD_DIMENSIONS, r.name(), ": ", r.where, ": dimension ", i, " is ", n);
        elements = checked_mul(elements, n, (r.name() + ": " + r.where).c_str());
        t.ne.push_back(n);
    }
    if (elements > static_cast<uint64_t>(INT64_MAX))
        fail(LLM_ERR_BAD_DIMENSIONS, r.name(), ": ", r.where, ": ", elements, " elements overflow");
    t.type = r.u32("type");
    t.offset = r.u64("data offset");
    DType d;
    if (ggml_type_dtype(t.type, d)) {
        const uint64_t block = static_cast<uint64_t>(dtype_block_values(d));
        if (t.ne[0] % block != 0)
            fail(LLM_ERR_BAD_DIMENSIONS, r.name(), ": ", r.where, ": rows of ", t.ne[0], " ",
                 ggml_type_name(t.type), " values are not a whole number of ", block,
                 "-value blocks");
        tensor_bytes(t.type, elements, r.name() + ": " + r.where, t.bytes);
    }
    return t;
}

// Every tensor of a known size lies inside the data section, aligned as the
// file says, and apart from the others.
void place_tensors(GgufFile &f) {
    const uint64_t data_size = f.data_offset <= f.size ? f.size - f.data_offset : 0;
    std::vector<const GgufTensorInfo *> sized;
    for (GgufTensorInfo &t : f.tensors) {
        const std::string where = f.name + ": tensor \"" + t.name + "\"";
        if (t.offset % f.alignment != 0)
            fail(LLM_ERR_FORMAT, where, ": data offset ", t.offset,
                 " is not a multiple of the alignment ", f.alignment);
        const uint64_t end = checked_add(t.offset, t.bytes, where.c_str());
        if (end > data_size || t.offset > data_size)
            fail(LLM_ERR_TRUNCATED, where, ": data [", t.offset, ", ", end,
                 ") reaches past the end of the ", data_size, "-byte data section (file of ",
                 f.size, " bytes)");
        DType d;
        if (!ggml_type_dtype(t.type, d)) continue; // size unknown: never used
        t.data = f.bytes + f.data_offset + t.offset;
        if (t.bytes > 0) sized.push_back(&t);
    }
    std::sort(sized.begin(), sized.end(), [](const GgufTensorInfo *a, const GgufTensorInfo *b) {
        return a->offset < b->offset;
    });
    for (size_t i = 1; i < sized.size(); ++i)
        if (sized[i - 1]->offset + sized[i - 1]->bytes > sized[i]->offset)
            fail(LLM_ERR_FORMAT, f.name, ": the data of tensors \"", sized[i - 1]->name,
                 "\" and \"", sized[i]->name, "\" overlap");
}

template <typename T> T read_at(const uint8_t *p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The elements of an array value, decoded one by one (the array was
// validated at parse time; the Reader still checks every read).
template <typename F>
void for_each_element(const GgufFile &f, const std::string &key, const GgufValue &v, F f_each) {
    Reader r(f.bytes, f.size, f.name, v.array_offset);
    r.where = "key \"" + key + "\"";
    const uint64_t fixed = fixed_value_bytes(v.array_type);
    for (uint64_t i = 0; i < v.array_count; ++i) {
        if (v.array_type == GgufType::STRING) {
            const uint64_t n = r.string_length("array string", GgufLimits::string_bytes);
            f_each(r.take(n, "array string"), n);
        } else {
            f_each(r.take(fixed, "array element"), fixed);
        }
    }
}

const GgufValue &array_of(const GgufFile &f, const std::string &key, const char *what) {
    const GgufValue *v = f.find(key);
    if (!v) fail(LLM_ERR_FORMAT, f.name, ": no key \"", key, "\"");
    if (v->type != GgufType::ARRAY)
        fail(LLM_ERR_FORMAT, f.name, ": key \"", key, "\" is a ", gguf_type_name(v->type),
             ", not an array of ", what);
    return *v;
}

[[noreturn]] void wrong_elements(const GgufFile &f, const std::string &key, const GgufValue &v,
                                 const char *what) {
    fail(LLM_ERR_FORMAT, f.name, ": key \"", key, "\" is an array of ",
         gguf_type_name(v.array_type), ", not of ", what);
}

// A scalar integer value as int64 (u64 above INT64_MAX: BAD_DIMENSIONS).
int64_t integer_of(const GgufFile &f, const std::string &key, const GgufValue &v) {
    switch (v.type) {
    case GgufType::I8:
    case GgufType::I16:
    case GgufType::I32:
    case GgufType::I64: return v.int_value;
    case GgufType::U8:
    case GgufType::U16:
    case GgufType::U32:
    case GgufType::U64:
        if (v.uint_value > static_cast<uint64_t>(INT64_MAX))
            fail(LLM_ERR_BAD_DIMENSIONS, f.name, ": key \"", key, "\" = ", v.uint_value,
                 " is too large");
        return static_cast<int64_t>(v.uint_value);
    default:
        fail(LLM_ERR_FORMAT, f.name, ": key \"", key, "\" is a ", gguf_type_name(v.type),
             ", not an integer");
    }
}

// An integer element of type t at p, as int64 (u64 values above INT64_MAX
// saturate: callers range-check anyway).
int64_t integer_at(GgufType t, const uint8_t *p) {
    switch (t) {
    case GgufType::U8: return read_at<uint8_t>(p);
    case GgufType::I8: return read_at<int8_t>(p);
    case GgufType::U16: return read_at<uint16_t>(p);
    case GgufType::I16: return read_at<int16_t>(p);
    case GgufType::U32: return read_at<uint32_t>(p);
    case GgufType::I32: return read_at<int32_t>(p);
    case GgufType::I64: return read_at<int64_t>(p);
    case GgufType::U64: {
        const uint64_t u = read_at<uint64_t>(p);
        return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
    }
    default: return 0;
    }
}

// A double as the nearest float, infinite beyond float's range (where a
// plain cast is undefined).
float to_float(double x) {
    if (x > static_cast<double>(FLT_MAX)) return HUGE_VALF;
    if (x < -static_cast<double>(FLT_MAX)) return -HUGE_VALF;
    return static_cast<float>(x);
}

} // namespace

const char *gguf_type_name(GgufType t) {
    switch (t) {
    case GgufType::U8: return "u8";
    case GgufType::I8: return "i8";
    case GgufType::U16: return "u16";
    case GgufType::I16: return "i16";
    case GgufType::U32: return "u32";
    case GgufType::I32: return "i32";
    case GgufType::F32: return "f32";
    case GgufType::BOOL: return "bool";
    case GgufType::STRING: return "string";
    case GgufType::ARRAY: return "array";
    case GgufType::U64: return "u64";
    case GgufType::I64: return "i64";
    case GgufType::F64: return "f64";
    }
    return "?";
}

std::string ggml_type_name(uint32_t type) {
    // ggml.h's enum ggml_type; "" for ids it removed or never had.
    static const char *const names[] = {
        "f32",     "f16",    "q4_0",    "q4_1",  "",       "",      "q5_0",  "q5_1",
        "q8_0",    "q8_1",   "q2_K",    "q3_K",  "q4_K",   "q5_K",  "q6_K",  "q8_K",
        "iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s", "iq4_nl", "iq3_s", "iq2_s", "iq4_xs",
        "i8",      "i16",    "i32",     "i64",   "f64",    "iq1_m", "bf16",  "",
        "",        "",       "tq1_0",   "tq2_0", "",       "",      "",      "mxfp4"};
    if (type < sizeof names / sizeof names[0] && names[type][0] != '\0') return names[type];
    return "type " + std::to_string(type);
}

bool ggml_type_dtype(uint32_t type, DType &out) {
    switch (type) {
    case ggml_type::F32: out = DType::F32; return true;
    case ggml_type::F16: out = DType::F16; return true;
    case ggml_type::BF16: out = DType::BF16; return true;
    case ggml_type::Q8_0: out = DType::Q8_0; return true;
    case ggml_type::Q4_0: out = DType::Q4_0; return true;
    case ggml_type::Q4_1: out = DType::Q4_1; return true;
    case ggml_type::Q5_0: out = DType::Q5_0; return true;
    case ggml_type::Q5_1: out = DType::Q5_1; return true;
    case ggml_type::Q4_K: out = DType::Q4_K; return true;
    case ggml_type::Q5_K: out = DType::Q5_K; return true;
    case ggml_type::Q6_K: out = DType::Q6_K; return true;
    default: return false;
    }
}

bool GgufValue::is_integer() const {
    switch (type) {
    case GgufType::U8:
    case GgufType::I8:
    case GgufType::U16:
    case GgufType::I16:
    case GgufType::U32:
    case GgufType::I32:
    case GgufType::U64:
    case GgufType::I64: return true;
    default: return false;
    }
}

bool GgufValue::is_number() const {
    return is_integer() || type == GgufType::F32 || type == GgufType::F64;
}

uint32_t GgufTensorInfo::rank() const {
    uint32_t n = static_cast<uint32_t>(ne.size());
    while (n > 1 && ne[n - 1] == 1)
        --n;
    return n;
}

const GgufValue *GgufFile::find(const std::string &key) const {
    auto it = key_index.find(key);
    return it == key_index.end() ? nullptr : &kvs[it->second].second;
}

const GgufTensorInfo *GgufFile::find_tensor(const std::string &tensor) const {
    auto it = tensor_index.find(tensor);
    return it == tensor_index.end() ? nullptr : &tensors[it->second];
}

std::string GgufFile::get_string(const std::string &key) const {
    const GgufValue *v = find(key);
    if (!v) fail(LLM_ERR_FORMAT, name, ": no key \"", key, "\"");
    if (v->type != GgufType::STRING)
        fail(LLM_ERR_FORMAT, name, ": key \"", key, "\" is a ", gguf_type_name(v->type),
             ", not a string");
    return v->string_value;
}

int64_t GgufFile::get_int(const std::string &key) const {
    const GgufValue *v = find(key);
    if (!v) fail(LLM_ERR_FORMAT, name, ": no key \"", key, "\"");
    return integer_of(*this, key, *v);
}

double GgufFile::get_float(const std::string &key) const {
    const GgufValue *v = find(key);
    if (!v) fail(LLM_ERR_FORMAT, name, ": no key \"", key, "\"");
    if (v->type == GgufType::F32 || v->type == GgufType::F64) return v->float_value;
    return static_cast<double>(integer_of(*this, key, *v));
}

bool GgufFile::get_bool(const std::string &key) const {
    const GgufValue *v = find(key);
    if (!v) fail(LLM_ERR_FORMAT, name, ": no key \"", key, "\"");
    if (v->type != GgufType::BOOL)
        fail(LLM_ERR_FORMAT, name, ": key \"", key, "\" is a ", gguf_type_name(v->type),
             ", not a bool");
    return v->uint_value != 0;
}

std::vector<std::string> GgufFile::get_string_array(const std::string &key) const {
    const GgufValue &v = array_of(*this, key, "strings");
    if (v.array_type != GgufType::STRING) wrong_elements(*this, key, v, "strings");
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(v.array_count));
    for_each_element(*this, key, v, [&](const uint8_t *p, uint64_t n) {
        out.emplace_back(reinterpret_cast<const char *>(p), static_cast<size_t>(n));
    });
    return out;
}

std::vector<float> GgufFile::get_float_array(const std::string &key) const {
    const GgufValue &v = array_of(*this, key, "numbers");
    GgufValue probe;
    probe.type = v.array_type;
    if (!probe.is_number()) wrong_elements(*this, key, v, "numbers");
    std::vector<float> out;
    out.reserve(static_cast<size_t>(v.array_count));
    for_each_element(*this, key, v, [&](const uint8_t *p, uint64_t) {
        if (v.array_type == GgufType::F32)
            out.push_back(read_at<float>(p));
        else if (v.array_type == GgufType::F64)
            out.push_back(to_float(read_at<double>(p)));
        else
            out.push_back(static_cast<float>(integer_at(v.array_type, p)));
    });
    return out;
}

std::vector<int32_t> GgufFile::get_int32_array(const std::string &key) const {
    const GgufValue &v = array_of(*this, key, "integers");
    GgufValue probe;
    probe.type = v.array_type;
    if (!probe.is_integer()) wrong_elements(*this, key, v, "integers");
    std::vector<int32_t> out;
    out.reserve(static_cast<size_t>(v.array_count));
    for_each_element(*this, key, v, [&](const uint8_t *p, uint64_t) {
        const int64_t x = integer_at(v.array_type, p);
        if (x < INT32_MIN || x > INT32_MAX)
            fail(LLM_ERR_BAD_DIMENSIONS, name, ": key \"", key, "\": element ", out.size(), " = ",
                 x, " does not fit 32 bits");
        out.push_back(static_cast<int32_t>(x));
    });
    return out;
}

bool looks_like_gguf(const uint8_t *data, size_t size) {
    return size >= 4 && std::memcmp(data, kMagic, 4) == 0;
}

GgufFile parse_gguf(const uint8_t *data, size_t size, const std::string &name) {
    GgufFile f;
    f.name = name;
    f.bytes = data;
    f.size = size;
    Reader r(data, size, f.name);
    const uint8_t *magic = r.take(4, "magic");
    if (std::memcmp(magic, kMagic, 4) != 0) r.format_error("not a GGUF file (no \"GGUF\" magic)");
    f.version = r.u32("version");
    if (f.version == 0x02000000u || f.version == 0x03000000u)
        fail(LLM_ERR_UNSUPPORTED, name, ": big-endian GGUF files are not supported");
    if (f.version != 2 && f.version != 3)
        fail(LLM_ERR_UNSUPPORTED, name, ": GGUF version ", f.version,
             " is not supported (libllm reads versions 2 and 3)");
    const uint64_t n_tensors = r.u64("tensor count");
    const uint64_t n_kvs = r.u64("key-value count");
    if (n_tensors > GgufLimits::tensor_count)
        r.format_error("tensor count " + std::to_string(n_tensors) + " is above the " +
                       std::to_string(GgufLimits::tensor_count) + " allowed");
    if (n_kvs > GgufLimits::kv_count)
        r.format_error("key-value count " + std::to_string(n_kvs) + " is above the " +
                       std::to_string(GgufLimits::kv_count) + " allowed");
    // Each key-value takes at least 8 + 1 + 4 + 1 bytes, each tensor info
    // 8 + 1 + 4 + 8 + 4 + 8: a count the file cannot hold is refused before
    // anything is reserved for it.
    const uint64_t min_bytes = n_kvs * 14 + n_tensors * 33;
    if (min_bytes > r.remaining())
        fail(LLM_ERR_TRUNCATED, name, ": ", n_kvs, " key-values and ", n_tensors,
             " tensor infos need at least ", min_bytes, " bytes but only ", r.remaining(),
             " follow the header");

    f.kvs.reserve(static_cast<size_t>(n_kvs));
    for (uint64_t i = 0; i < n_kvs; ++i) {
        r.where = "key-value " + std::to_string(i);
        std::string key = r.string("key", GgufLimits::key_bytes);
        if (key.empty()) r.format_error("empty key");
        r.where = "key \"" + key + "\"";
        if (f.key_index.count(key)) r.format_error("duplicate key");
        const GgufType type = read_type(r, "value type");
        GgufValue v = read_value(r, type);
        f.key_index.emplace(key, f.kvs.size());
        f.kvs.emplace_back(std::move(key), std::move(v));
    }
    f.alignment = alignment_of(f);

    f.tensors.reserve(static_cast<size_t>(n_tensors));
    for (uint64_t i = 0; i < n_tensors; ++i) {
        GgufTensorInfo t = read_tensor_info(r, i);
        if (f.tensor_index.count(t.name))
            fail(LLM_ERR_FORMAT, name, ": tensor \"", t.name, "\" appears twice");
        f.tensor_index.emplace(t.name, f.tensors.size());
        f.tensors.push_back(std::move(t));
    }
    f.data_offset = align_up(r.pos(), f.alignment, "GGUF data section offset");
    place_tensors(f);
    return f;
}

} // namespace llm
