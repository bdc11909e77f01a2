// Errors inside the engine are C++ exceptions carrying an llm_status; the C
// layer (capi/) is the only place that catches them and turns them into a
// status code plus the thread-local message behind llm_last_error().
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "llm.h"

namespace llm {

class Error : public std::runtime_error {
  public:
    Error(llm_status status, const std::string &message)
        : std::runtime_error(message), status_(status) {}
    llm_status status() const { return status_; }

  private:
    llm_status status_;
};

// Builds a message from any streamable pieces: fail(LLM_ERR_IO, path, ": ", why).
template <typename... Parts> [[noreturn]] void fail(llm_status status, const Parts &...parts) {
    std::ostringstream os;
    (os << ... << parts);
    throw Error(status, os.str());
}

} // namespace llm
