/* Early return on failure inside the library (not part of the public API). */
#ifndef TL_BASE_TRY_H
#define TL_BASE_TRY_H

#include <tailor/base.h>

/* Evaluates x (a tl_result) and returns it from the calling function unless it is TL_OK. */
#define TRY(x)                                                                                     \
    do {                                                                                           \
        tl_result try_r_ = (x);                                                                    \
        if (try_r_ != TL_OK) return try_r_;                                                        \
    } while (0)

#endif
