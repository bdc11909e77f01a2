// The merge loop both BPE flavours share: repeatedly replace the best
// adjacent pair of ids by its merged id, leftmost first on ties, until no
// pair merges. A heap over a linked list with lazy invalidation keeps it
// O(n log n). The tokenizer supplies the rule:
//   bool rule(int32_t left, int32_t right, Priority &priority, int32_t &merged)
// returns whether the pair merges; a smaller priority merges first.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace llm {

template <typename Priority, typename Rule> void merge_pairs(std::vector<int32_t> &ids, Rule rule) {
    const size_t n = ids.size();
    if (n < 2) return;
    std::vector<int64_t> prev(n), next(n);
    for (size_t i = 0; i < n; ++i) {
        prev[i] = static_cast<int64_t>(i) - 1;
        next[i] = i + 1 < n ? static_cast<int64_t>(i + 1) : -1;
    }
    struct Candidate {
        Priority priority;
        int64_t left;
        int32_t left_id, right_id, merged;
        bool operator>(const Candidate &o) const {
            if (priority != o.priority) return o.priority < priority;
            return left > o.left;
        }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
    auto at = [&](int64_t i) -> int32_t & { return ids[static_cast<size_t>(i)]; };
    auto push = [&](int64_t left) {
        if (left < 0 || next[left] < 0) return;
        Priority priority;
        int32_t merged;
        if (rule(at(left), at(next[left]), priority, merged))
            queue.push({priority, left, at(left), at(next[left]), merged});
    };
    for (size_t i = 0; i + 1 < n; ++i)
        push(static_cast<int64_t>(i));
    std::vector<bool> alive(n, true);
    while (!queue.empty()) {
        Candidate c = queue.top();
        queue.pop();
        const int64_t l = c.left, r = next[l];
        if (!alive[l] || r < 0) continue;
        if (at(l) != c.left_id || at(r) != c.right_id) continue; // stale
        at(l) = c.merged;
        alive[r] = false;
        next[l] = next[r];
        if (next[r] >= 0) prev[next[r]] = l;
        push(prev[l]);
        push(l);
    }
    size_t w = 0;
    for (int64_t i = 0; i >= 0; i = next[i])
        ids[w++] = at(i);
    ids.resize(w);
}

} // namespace llm
