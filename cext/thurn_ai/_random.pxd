# The search's own random numbers (splitmix64), inline in every module that cimports them: the search
# keeps its stream apart from the game's chance generator (StateData.rng / prng in the core).
from libc.stdint cimport uint64_t


cdef inline uint64_t next_u64(uint64_t* s) noexcept nogil:
    s[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline int below(uint64_t* s, int n) noexcept nogil:
    """A uniform whole number in [0, n)."""
    return <int>(((next_u64(s) >> 32) * <uint64_t>n) >> 32)


cdef inline double unit(uint64_t* s) noexcept nogil:
    """A uniform number in [0, 1)."""
    return (next_u64(s) >> 11) * (1.0 / 9007199254740992.0)
