#include "common/log.h"

#include <atomic>
#include <mutex>

namespace llm {

namespace {
std::mutex g_mu;
llm_log_callback g_callback = nullptr;
void *g_user_data = nullptr;
std::atomic<int32_t> g_min_level{LLM_LOG_ERROR + 1}; // nothing until a sink is set
} // namespace

bool log_enabled(int32_t level) {
    return level >= g_min_level.load(std::memory_order_relaxed);
}

void log_write(int32_t level, const std::string &message) {
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_callback) g_callback(level, message.c_str(), g_user_data);
}

void log_set(llm_log_callback callback, void *user_data, int32_t min_level) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_callback = callback;
    g_user_data = user_data;
    g_min_level.store(callback ? min_level : LLM_LOG_ERROR + 1);
}

} // namespace llm
