// Unicode Normalization Form C (canonical decomposition, canonical ordering,
// canonical composition), as the NFC normalizer of tokenizer.json applies it.
#pragma once

#include <string>
#include <string_view>

namespace llm {

// Writes NFC(text) to out and returns true, or returns false (out untouched)
// when text is already in NFC. Bytes that are not well-formed UTF-8 pass
// through unchanged and block composition across them.
bool nfc_normalize(std::string_view text, std::string &out);

} // namespace llm
