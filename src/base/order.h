/* A stable sort of rows of unsigned keys (LSD radix, a byte a pass): the order any stable sort
 * by the same keys gives, in time linear in the rows, for sorts whose comparison is a chain of
 * key compares (the hair sheet's ties: qsort there cost more than building the ties). */
#ifndef TL_BASE_ORDER_H
#define TL_BASE_ORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Writes to order the indices of the count rows of keys (width keys a row, row-major, the
 * first key the most significant) in ascending key order, equal rows in index order.
 * scratch holds count indices. */
void tl_order_rows(const uint32_t* keys, uint32_t width, uint32_t count, uint32_t* order,
                   uint32_t* scratch);

/* Sorts count values in place into the order a stable sort comparing them by `<` gives (glibc's
 * qsort, a merge sort, with (x > y) - (x < y)): -0 and +0 kept in their order. keys, order and
 * spare hold count indices, sorted count floats. False, values untouched, when one is NaN. */
bool tl_order_floats(float* values, uint32_t count, uint32_t* keys, uint32_t* order,
                     uint32_t* spare, float* sorted);

/* A key that orders floats as `<` does: -0 and +0 one key (they compare equal), negatives
 * reversed below the positives. Not for NaN, which `<` does not order. */
static inline uint32_t tl_order_float_key(float f) {
    uint32_t u;
    if (f == 0) f = 0;
    memcpy(&u, &f, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

#endif
