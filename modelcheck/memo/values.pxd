# Read by Cython when ``modelcheck compile`` builds modelcheck/memo/values.py (an augmenting .pxd; the
# build is keyed by this file too).  The type walk of :func:`same_types` in C, for the common values, and the
# interner as an extension type (the learner calls it for every new component value).

cdef extern from *:
    """
    /* Whether the equal values `a` (plain) and `b` have the same types all the way down: 1 or 0, -1 when
       a part is none of a number, str, None, tuple or frozenset (the caller decides in Python), -2 on an
       error.  `b`'s parts of type `traced` count as their `name` slot, read without the wrapper (it would log
       a use). */
    static int mc_same_types(PyObject *a, PyObject *b, PyObject *traced, PyObject *name);

    /* The most elements of a frozenset matched pair by pair (quadratic in the size); larger ones go to Python. */
    #define MC_SET_MATCH_MAX 64

    /* Equal frozensets `a` and `b`: each element of `b` against the one element of `a` equal to it (a set
       holds no two equal elements), found by hash and then ==.  An element of type `traced` in `b` leaves the
       answer to Python. */
    static int mc_same_types_set(PyObject *a, PyObject *b, PyObject *traced, PyObject *name) {
        Py_ssize_t pa, pb = 0;
        PyObject *x = NULL, *y;
        Py_hash_t hx, hy;
        if (PySet_GET_SIZE(a) != PySet_GET_SIZE(b)) return 0;
        if (PySet_GET_SIZE(a) > MC_SET_MATCH_MAX) return -1;
        while (_PySet_NextEntry(b, &pb, &y, &hy)) {
            int found = 0, r;
            if ((PyObject *)Py_TYPE(y) == traced) return -1;
            pa = 0;
            while (_PySet_NextEntry(a, &pa, &x, &hx)) {
                if (hx != hy) continue;
                r = PyObject_RichCompareBool(x, y, Py_EQ);
                if (r < 0) return -2;
                if (r) { found = 1; break; }
            }
            if (!found) return -1;
            r = mc_same_types(x, y, traced, name);
            if (r != 1) return r;
        }
        return 1;
    }

    static int mc_same_types(PyObject *a, PyObject *b, PyObject *traced, PyObject *name) {
        PyTypeObject *t;
        Py_ssize_t n, i;
        if (a == b) return 1;
        if ((PyObject *)Py_TYPE(b) == traced) {
            int r;
            PyObject *v = PyObject_GenericGetAttr(b, name);
            if (v == NULL) return -2;
            r = mc_same_types(a, v, traced, name);
            Py_DECREF(v);
            return r;
        }
        t = Py_TYPE(a);
        if (t != Py_TYPE(b)) return 0;
        if (t == &PyLong_Type || t == &PyBool_Type) return 1;
        if (t == &PyFloat_Type)  /* equal floats: 0.0 and -0.0 differ in sign only */
            return copysign(1.0, PyFloat_AS_DOUBLE(a)) == copysign(1.0, PyFloat_AS_DOUBLE(b));
        if (t == &PyUnicode_Type || a == Py_None) return 1;
        if (t == &PyFrozenSet_Type) return mc_same_types_set(a, b, traced, name);
        if (!PyTuple_Check(a)) return -1;
        n = PyTuple_GET_SIZE(a);
        if (n != PyTuple_GET_SIZE(b)) return 0;
        for (i = 0; i < n; i++) {
            int r = mc_same_types(PyTuple_GET_ITEM(a, i), PyTuple_GET_ITEM(b, i), traced, name);
            if (r != 1) return r;
        }
        return 1;
    }
    """
    int mc_same_types(object a, object b, object traced, object name) except -2


cdef class Interner:
    cdef public list values
    cdef public dict ids, plain, alias_of
    cdef public object canonical, fps, before_replace
