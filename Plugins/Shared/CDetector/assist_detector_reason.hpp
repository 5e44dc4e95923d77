/* assist_detector_reason.hpp - the malloc'ed copy of a reason the C API hands back in `*err` (the caller frees
 * it), shared by the detector's, the embedder's and the video reader's C++. */
#ifndef ASSIST_DETECTOR_REASON_HPP
#define ASSIST_DETECTOR_REASON_HPP

#include <cstdlib>
#include <cstring>
#include <string>

inline char *assist_copy_reason(const std::string &text) {
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy != nullptr) std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

#endif
