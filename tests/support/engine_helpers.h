// Shortcuts for the white-box tests: run llm::Transformer on a Model loaded
// without the C API (e.g. weights only, before a tokenizer exists), and
// check thrown llm::Errors.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "model/model.h"

namespace test {

// Logits after feeding tokens[0..r] one at a time, for each r in `rows`
// (ascending).
std::vector<std::vector<float>> teacher_forced_logits(const llm::Model &model,
                                                      const std::vector<int32_t> &tokens,
                                                      const std::vector<int32_t> &rows);

// Greedy continuation after `prompt` (fed as one batch), run.c-style: stop
// before a token in `stop`, or once `steps` positions have run (prompt
// included; the token chosen at the last position is kept).
std::vector<int32_t> greedy_ids(const llm::Model &model, const std::vector<int32_t> &prompt,
                                int32_t steps, const std::set<int32_t> &stop);

// The llm::Error `f` throws; fails the test if it throws nothing or
// something else.
llm::Error error_of(const std::function<void()> &f);

// Checks llama2.c run.c's goldens for stories260K (golden/llama2c/):
// greedy ids with its stop rule (id 1) and logits rows 0..7 within 1e-4.
void check_stories260k_goldens(const llm::Model &model);

} // namespace test
