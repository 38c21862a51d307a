"""Two numba intrinsics for the hot loops of the chunk kernels (measured, not guessed).

* `unmanaged(arr)`: the same array without its reference count. Numba increments and
  decrements an array's reference count atomically at every call that passes it and
  at every view of it; in a kernel of small non-inlined functions that was a quarter
  of the time (perf). The caller keeps `arr` alive for as long as the result is used.
* `cells(arr)`: the data of a C-contiguous 1-d array as a raw pointer, which numba
  indexes without the wraparound test it adds to every index that might be negative
  (a tenth of the time). Again the caller keeps `arr` alive, and indices are trusted.
"""

from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


@intrinsic
def unmanaged(typingctx, arr):
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
def cells(typingctx, arr):
    def codegen(context, builder, sig, args):
        return make_array(arr)(context, builder, value=args[0]).data
    return types.CPointer(arr.dtype)(arr), codegen
