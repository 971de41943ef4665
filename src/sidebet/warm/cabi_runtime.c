/* numba's runtime for sidebet's plain kernel library (sidebet/warm/cabi_build.py).
 *
 * The kernels numba compiles call numba's helper functions (raising an error, the
 * interpreter's lock) and its memory manager (NRT); a CPython extension built by
 * numba.pycc gets them from numba's modulemixin.c.  This file includes the same helper
 * library numba ships, hidden inside the shared library, and exports one function that
 * sets up the memory manager once the library is loaded.  It needs numpy's headers to
 * compile, not numpy to run: nothing here is called with a numpy object.
 */

#include "_numba_common.h"
#include "_pymodule.h"

#define NUMBA_EXPORT_FUNC(_rettype) VISIBILITY_HIDDEN _rettype
#define NUMBA_EXPORT_DATA(_vartype) VISIBILITY_HIDDEN _vartype
#define PYCC_COMPILING

#include "_helperlib.c"
#include "core/runtime/nrt.h"

/* the hash secrets numba's helper library refers to (unused by the kernels) */
int64_t _numba_hashsecret_siphash_k0;
int64_t _numba_hashsecret_siphash_k1;
int64_t _numba_hashsecret_djbx33a_suffix;

VISIBILITY_GLOBAL void sidebet_runtime_init(void)
{
    NRT_MemSys_init();
}
