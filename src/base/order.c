/* LSD radix sort of key rows (base/order.h): from the least significant byte of the last key to
 * the most significant of the first, each pass a stable counting sort, so ties keep the order
 * the earlier passes left (and, at the start, the index order). */
#include "base/order.h"

#include <stdbool.h>

void tl_order_rows(const uint32_t* keys, uint32_t width, uint32_t count, uint32_t* order,
                   uint32_t* scratch) {
    for (uint32_t i = 0; i < count; ++i)
        order[i] = i;
    uint32_t *from = order, *to = scratch;
    for (uint32_t k = width; k-- > 0;) {
        /* a key's four byte counts in one pass in row order (counts do not depend on order) */
        uint32_t start[4][257] = {{0}};
        for (uint32_t i = 0; i < count; ++i) {
            uint32_t v = keys[(size_t)i * width + k];
            for (int b = 0; b < 4; ++b)
                ++start[b][((v >> (8 * b)) & 0xffu) + 1];
        }
        for (int b = 0; b < 4; ++b) {
            bool one = false; /* every row the same byte: the pass would keep the order */
            for (uint32_t d = 1; d <= 256; ++d)
                one = one || start[b][d] == count;
            if (one) continue;
            for (uint32_t d = 1; d <= 256; ++d)
                start[b][d] += start[b][d - 1];
            for (uint32_t i = 0; i < count; ++i)
                to[start[b][(keys[(size_t)from[i] * width + k] >> (8 * b)) & 0xffu]++] = from[i];
            uint32_t* t = from;
            from = to, to = t;
        }
    }
    if (from != order) memcpy(order, from, sizeof *order * count);
}

bool tl_order_floats(float* values, uint32_t count, uint32_t* keys, uint32_t* order,
                     uint32_t* spare, float* sorted) {
    for (uint32_t v = 0; v < count; ++v) {
        if (values[v] != values[v]) return false;
        keys[v] = tl_order_float_key(values[v]);
    }
    tl_order_rows(keys, 1, count, order, spare);
    for (uint32_t v = 0; v < count; ++v)
        sorted[v] = values[order[v]];
    memcpy(values, sorted, sizeof *values * count);
    return true;
}
