"""Per-game counter-based random streams (the randomness contract, sheepsim/ARCHITECTURE.md).

Every random decision of game `g` in a run with master seed `seed` comes from a stream
keyed by `(seed, g, stream)`: the key is hashed with SplitMix64 into the 256-bit state
of a xoshiro256** generator. Nothing depends on threads, chunking or backend, so any
game can be replayed alone from its index.

Streams are tied to a source of chance, not to a policy: a game module documents
which stream number serves which source (for example stream 0 for the board, stream
1 + s for seat s), so common random numbers stay aligned when decisions diverge.

A stream's state is a `uint64[4]` array; `streams(seed, g, n)` gives `uint64[n, 4]`.
"""

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_INV_2_53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def _mix(z):
    """SplitMix64 finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def seed_stream(seed, game, stream, out):
    """Fill `out` (uint64[4]) with the xoshiro256** state of stream `stream` of `game`."""
    key = _mix(np.uint64(seed) + _GOLDEN)
    key = _mix(key ^ (np.uint64(game) * _GOLDEN))
    key = _mix(key ^ (np.uint64(stream) + _M1))
    x = key
    for i in range(4):
        x = x + _GOLDEN
        out[i] = _mix(x)
    # xoshiro's only forbidden state is all zeros; SplitMix64 outputs make it
    # astronomically unlikely, but the contract must hold for every key.
    if out[0] == 0 and out[1] == 0 and out[2] == 0 and out[3] == 0:
        out[0] = _GOLDEN


@njit(cache=True)
def seed_streams(seed, game, out):
    """Seed every row of `out` (uint64[n, 4]) as streams 0..n-1 of `game`."""
    for k in range(out.shape[0]):
        seed_stream(seed, game, k, out[k])


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def next_u64(s):
    """Advance stream `s` (uint64[4]) and return 64 random bits (xoshiro256**)."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True)
def rand_below(s, n):
    """Uniform integer in [0, n) without bias, for 1 <= n < 2**32.

    Lemire's multiply-shift: the high 32 bits of a 32-bit draw times n, rejecting
    the few draws that would over-represent some values; a division is needed
    only in the rare case that a rejection is possible.
    """
    n64 = np.uint64(n)
    m = (next_u64(s) >> np.uint64(32)) * n64
    low = m & _LOW32
    if low < n64:
        threshold = (_TWO32 - n64) % n64
        while low < threshold:
            m = (next_u64(s) >> np.uint64(32)) * n64
            low = m & _LOW32
    return np.int64(m >> np.uint64(32))


@njit(cache=True)
def rand_float(s):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(s) >> np.uint64(11)) * _INV_2_53


def streams(seed: int, game: int, n: int) -> np.ndarray:
    """The `n` streams of one game, as a fresh uint64[n, 4] array (Python helper)."""
    out = np.empty((n, 4), dtype=np.uint64)
    seed_streams(np.uint64(seed), np.uint64(game), out)
    return out
