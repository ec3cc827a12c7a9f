/* LSD radix sort of key rows (base/order.h): from the least significant byte of the last key to
 * the most significant of the first, each pass a stable counting sort, so ties keep the order
 * the earlier passes left (and, at the start, the index order). */
#include "base/order.h"

void tl_order_rows(const uint32_t* keys, uint32_t width, uint32_t count, uint32_t* order,
                   uint32_t* scratch) {
    for (uint32_t i = 0; i < count; ++i)
        order[i] = i;
    uint32_t *from = order, *to = scratch;
    for (uint32_t k = width; k-- > 0;) {
        /* the key's bits that differ between rows: a byte without one would keep the order */
        uint32_t vary = 0, first = count ? keys[k] : 0;
        for (uint32_t i = 0; i < count; ++i)
            vary |= keys[(size_t)i * width + k] ^ first;
        for (int b = 0; b < 4; ++b) {
            if (!(vary >> (8 * b) & 0xffu)) continue;
            /* two tables, the even rows' and the odd rows': runs of one byte then count
               without waiting on each other */
            uint32_t start[2][257] = {{0}}, i = 0;
            for (; i + 1 < count; i += 2) {
                ++start[0][((keys[(size_t)i * width + k] >> (8 * b)) & 0xffu) + 1];
                ++start[1][((keys[(size_t)(i + 1) * width + k] >> (8 * b)) & 0xffu) + 1];
            }
            if (i < count) ++start[0][((keys[(size_t)i * width + k] >> (8 * b)) & 0xffu) + 1];
            for (uint32_t d = 1; d <= 256; ++d)
                start[0][d] += start[0][d - 1] + start[1][d];
            for (i = 0; i < count; ++i)
                to[start[0][(keys[(size_t)from[i] * width + k] >> (8 * b)) & 0xffu]++] = from[i];
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
