// Library-internal logging. Silent unless the host installs a sink with
// llm_log_set().
#pragma once

#include <sstream>
#include <string>

#include "llm.h"

namespace llm {

bool log_enabled(int32_t level);
void log_set(llm_log_callback callback, void *user_data, int32_t min_level);
void log_write(int32_t level, const std::string &message);

template <typename... Parts> void log(int32_t level, const Parts &...parts) {
    if (!log_enabled(level)) return;
    std::ostringstream os;
    (os << ... << parts);
    log_write(level, os.str());
}

} // namespace llm
