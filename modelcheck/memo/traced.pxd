# Read by Cython when ``modelcheck compile`` builds modelcheck/memo/traced.py (an augmenting .pxd; the
# build is keyed by this file too): ``Traced`` as an extension type whose operations read C fields.

cdef class Traced:
    cdef readonly object _v
    cdef readonly object _k
    cdef readonly list _log
