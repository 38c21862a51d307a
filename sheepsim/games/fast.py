"""Every speed trick of the kernels, in one place, each with a checked mode.

Measured, not guessed (perf, on the chunk kernels):

* `array(a)`: the same array without its reference count. Numba increments and
  decrements an array's reference count atomically at every call that passes it and
  at every view of it; in a kernel of small non-inlined functions that was a quarter
  of the time. The caller keeps `a` alive for as long as the result is used.
* `pointer(a)`: the data of a C-contiguous 1-d array as a raw pointer, which numba
  indexes without the wraparound test it adds to every index that might be negative
  (a tenth of the time). Again the caller keeps `a` alive, and indices are trusted.
* `below(x, mask)`: an index read from memory (a hex number in a state) as x & mask.
  numba gives every signed index it cannot prove non-negative a fix-up for negative
  indices (a compare and a select per access); after the mask LLVM can prove it, and
  the fix-up folds away (Battle Sheep's greedy reads its neighbour tables so: with a
  flat scratch and fewer branches, its move scoring lost about a quarter of its time).
* `placement_values`: a hand-written LLVM vector loop (Bye-Bye Black Sheep's zoo
  placement scan, a fifth of a game as a plain loop).

Only the shared driver (driver.py) converts arrays; engines and policies index what
they are given and never convert themselves. Kernels index state only with
non-negative integers, so they run unchanged on either form.

Checked mode: with the environment variable SHEEPSIM_CHECKED=1 (read at import) every
trick is replaced by its plain form: `array` and `pointer` return the array itself,
`below` returns x unmasked (so the bounds check sees an x out of range) and
`placement_values` is the plain loop it computes. Run with NUMBA_BOUNDSCHECK=1 as well,
numba then checks every index of every kernel (`.ci/run` runs the conformance suite so).
The disk cache is keyed by the mode (sheepsim/cache.py), so the two never mix.
"""

from __future__ import annotations

import os

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

CHECKED = os.environ.get("SHEEPSIM_CHECKED", "") not in ("", "0")


@intrinsic
def _unmanaged(typingctx, arr):
    def codegen(context, builder, sig, args):
        src = make_array(arr)(context, builder, value=args[0])
        dst = make_array(arr)(context, builder)
        dst.meminfo = context.get_constant_null(types.voidptr)
        dst.parent = context.get_constant_null(types.pyobject)
        dst.nitems = src.nitems
        dst.itemsize = src.itemsize
        dst.data = src.data
        dst.shape = src.shape
        dst.strides = src.strides
        return dst._getvalue()
    return arr(arr), codegen


@intrinsic
def _cells(typingctx, arr):
    def codegen(context, builder, sig, args):
        return make_array(arr)(context, builder, value=args[0]).data
    return types.CPointer(arr.dtype)(arr), codegen


I32 = ir.IntType(32)
I64 = ir.IntType(64)


def _data_pointer(context, builder, s_type, s):
    """The int32 data pointer of `s`, an array or already its pointer."""
    if isinstance(s_type, types.Array):
        return make_array(s_type)(context, builder, value=s).data
    return s


def _make_vector_values(n):
    """The intrinsic behind `placement_values` for n slots (see there)."""
    def lanes():
        return ir.VectorType(I32, n)

    @intrinsic
    def vector_values(typingctx, s, hand, zoo, bound_slot):
        if not ((isinstance(s, types.Array) and s.dtype == types.int32 and s.ndim == 1)
                or s == types.CPointer(types.int32)):
            return None

        def codegen(context, builder, sig, args):
            ptr = _data_pointer(context, builder, sig.args[0], args[0])
            hand, zoo, bound_slot = args[1:]

            def const(x):
                return ir.Constant(lanes(), x if isinstance(x, list) else [x] * n)

            def load(at):
                return builder.load(builder.bitcast(builder.gep(ptr, [at]), lanes().as_pointer()), align=4)

            def splat(x):
                v = builder.insert_element(ir.Constant(lanes(), ir.Undefined), x, ir.Constant(I32, 0))
                return builder.shuffle_vector(v, v, const(0))

            h = load(hand)
            z = load(zoo)
            bound = builder.icmp_signed('==', const(list(range(1, n + 1))), splat(builder.trunc(bound_slot, I32)))
            z = builder.add(z, builder.zext(bound, lanes()))
            useful = builder.and_(builder.icmp_signed('<', z, const(3)), builder.icmp_signed('>', h, const(0)))
            v = builder.select(useful, builder.or_(builder.shl(z, const(4)), h), const(0))
            smax = cgutils.get_or_insert_function(builder.module, ir.FunctionType(I32, [lanes()]),
                                                  f"llvm.vector.reduce.smax.v{n}i32")
            best = builder.call(smax, [v])
            tied = builder.bitcast(builder.icmp_signed('==', v, splat(best)), ir.IntType(n))
            return context.make_tuple(builder, sig.return_type, [builder.sext(best, I64), builder.zext(tied, I64)])
        return types.UniTuple(types.int64, 2)(s, types.int64, types.int64, types.int64), codegen
    return vector_values


SLOTS = 16          # placement_values' slot count: Bye-Bye Black Sheep's MAX_SPECIES
_vector_values = _make_vector_values(SLOTS)


@njit(cache=True, inline="always")
def _loop_values(s, hand, zoo, bound_slot):
    best = 0
    tied = 0
    for k in range(SLOTS):
        h = s[hand + k]
        z = s[zoo + k] + (bound_slot == k + 1)
        v = 16 * z + h if (z < 3) & (h > 0) else 0
        if v > best:
            best, tied = v, 0
        if v == best:
            tied |= 1 << k
    return np.int64(best), np.int64(tied)


@intrinsic
def popcount(typingctx, x):
    """Set bits of the integer x (one instruction; the same in checked mode)."""
    if not isinstance(x, types.Integer):
        return None
    return x(x), lambda context, builder, sig, args: builder.ctpop(args[0])


@intrinsic
def trailing_zeros(typingctx, x):
    """Zero bits below the lowest set bit of the integer x, for x != 0: the index of
    the first member of a bit set (one instruction; the same in checked mode)."""
    if not isinstance(x, types.Integer):
        return None
    return x(x), lambda context, builder, sig, args: builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))


if CHECKED:
    @njit(cache=True, inline="always")
    def array(a):
        return a

    @njit(cache=True, inline="always")
    def below(x, mask):
        return x

    @njit(cache=True, inline="always")
    def pointer(a):
        return a

    placement_values = _loop_values
else:
    @njit(cache=True, inline="always")
    def array(a):
        """`a` without reference counting (see the module docstring)."""
        return _unmanaged(a)

    @njit(cache=True, inline="always")
    def pointer(a):
        """`a`'s data as a raw pointer (see the module docstring)."""
        return _cells(a)

    @njit(cache=True, inline="always")
    def below(x, mask):
        """x, an integer known to lie in 0 .. mask (a power of 2 less 1), as x & mask
        (see the module docstring)."""
        return x & mask

    @njit(cache=True, inline="always")
    def placement_values(s, hand, zoo, bound_slot):
        """(best, tied) over SLOTS slots whose hand and zoo counts start at s[hand] and
        s[zoo] (`s`: an int32 array or its pointer):

            v[k] = 16 * z + h if (z < 3) & (h > 0) else 0
                   where h = s[hand + k], z = s[zoo + k] + (bound_slot == k + 1)
            best = max of v;  bit k of `tied` is set if v[k] == best

        as one vector compare and reduce (`_loop_values` is the plain loop)."""
        return _vector_values(s, hand, zoo, bound_slot)
