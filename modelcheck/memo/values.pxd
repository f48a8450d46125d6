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

    /* MixedWatch's scan of the leaves learnt since its last (values.py's scan_changes, which says what it
       marks): 1 if anything was new, 0 if not, -1 with an error set. */
    static int mc_scan_changes(PyObject *entries, PyObject *starts, PyObject *counts, PyObject *copies,
                               PyObject *aliases, PyObject *held, Py_ssize_t width) {
        Py_buffer e = {0}, st = {0}, ct = {0}, cp = {0}, al = {0}, hd = {0};
        int out = -1, grew = 0;
        Py_ssize_t i, n, ne, na, s, j;
        if (PyObject_GetBuffer(entries, &e, PyBUF_C_CONTIGUOUS) < 0 ||
            PyObject_GetBuffer(starts, &st, PyBUF_C_CONTIGUOUS) < 0 ||
            PyObject_GetBuffer(counts, &ct, PyBUF_C_CONTIGUOUS) < 0 ||
            PyObject_GetBuffer(copies, &cp, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0 ||
            PyObject_GetBuffer(aliases, &al, PyBUF_C_CONTIGUOUS) < 0 ||
            PyObject_GetBuffer(held, &hd, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
            goto done;
        if (e.itemsize != 4 || st.itemsize != 4 || ct.itemsize != 4 || cp.itemsize != 1 || al.itemsize != 8 ||
            hd.itemsize != 1 || st.len != ct.len || cp.len != width * width) {
            PyErr_SetString(PyExc_ValueError, "scan_changes: arrays of the wrong types or sizes");
            goto done;
        }
        n = st.len / 4;
        ne = e.len / 4;
        na = al.len / 8;
        if (hd.len != width * na) {
            PyErr_SetString(PyExc_ValueError, "scan_changes: held is not components by aliases");
            goto done;
        }
        {
            const int32_t *E = (const int32_t *)e.buf, *S = (const int32_t *)st.buf, *C = (const int32_t *)ct.buf;
            const int64_t *A = (const int64_t *)al.buf;
            uint8_t *CP = (uint8_t *)cp.buf, *HD = (uint8_t *)hd.buf;
            for (i = 0; i < n; i++) {
                Py_ssize_t at = S[i];
                if (at == (i + 1 < n ? (Py_ssize_t)S[i + 1] : ne)) continue;  /* a predicate's leaf */
                for (s = 0; s < C[i]; s++) {
                    Py_ssize_t changes;
                    if (at < 0 || at >= ne || at + 1 + 2 * (Py_ssize_t)E[at] > ne) goto bad;
                    changes = E[at];
                    for (j = 0; j < changes; j++) {
                        const int32_t k = E[at + 1 + 2 * j], x = E[at + 2 + 2 * j];
                        if (k < 0 || k >= width) goto bad;
                        if (x < 0) {
                            if (~x >= width) goto bad;
                            if (!CP[(Py_ssize_t)(~x) * width + k]) { CP[(Py_ssize_t)(~x) * width + k] = 1; grew = 1; }
                        } else if (na) {
                            Py_ssize_t lo = 0, hi = na;  /* the first alias >= x */
                            while (lo < hi) {
                                const Py_ssize_t mid = (lo + hi) / 2;
                                if (A[mid] < x) lo = mid + 1; else hi = mid;
                            }
                            if (lo < na && A[lo] == x && !HD[k * na + lo]) { HD[k * na + lo] = 1; grew = 1; }
                        }
                    }
                    at += 1 + 2 * changes;
                }
            }
        }
        out = grew;
        goto done;
      bad:
        PyErr_SetString(PyExc_ValueError, "scan_changes: a leaf's entries run past the entries or the row");
      done:
        PyBuffer_Release(&e); PyBuffer_Release(&st); PyBuffer_Release(&ct);
        PyBuffer_Release(&cp); PyBuffer_Release(&al); PyBuffer_Release(&hd);
        return out;
    }
    """
    int mc_same_types(object a, object b, object traced, object name) except -2
    int mc_scan_changes(object entries, object starts, object counts, object copies, object aliases,
                        object held, Py_ssize_t width) except -1


cdef class Interner:
    cdef public list values
    cdef public dict ids, plain, alias_of
    cdef public object canonical, fps, before_replace
