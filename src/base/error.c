#include <tailor/base.h>

#include <stdarg.h>
#include <stdio.h>

const char* tl_result_string(tl_result result) {
    switch (result) {
    case TL_OK:
        return "ok";
    case TL_ERROR_IO:
        return "io";
    case TL_ERROR_FORMAT:
        return "format";
    case TL_ERROR_INVALID:
        return "invalid";
    case TL_ERROR_UNSUPPORTED:
        return "unsupported";
    case TL_ERROR_LIMIT:
        return "limit";
    case TL_ERROR_MEMORY:
        return "memory";
    case TL_ERROR_NOT_FOUND:
        return "not found";
    case TL_ERROR_EXISTS:
        return "exists";
    case TL_ERROR_ARGUMENT:
        return "argument";
    }
    return "unknown";
}

tl_result tl_error_set(tl_error* err, tl_result result, const char* format, ...) {
    if (err) {
        err->result = result;
        va_list args;
        va_start(args, format);
        vsnprintf(err->message, sizeof err->message, format, args);
        va_end(args);
    }
    return result;
}
