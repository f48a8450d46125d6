# Read by Cython when ``modelcheck compile`` builds modelcheck/model/successor_hash.py (an augmenting .pxd;
# the build is keyed by this file too).  See that module for why this is ``hash(t)``, exactly.

cdef extern from *:
    """
    /* CPython's tuplehash (Objects/tupleobject.c, 3.8 and later), in two halves. */
    #define MC_XXPRIME_1 ((Py_uhash_t)11400714785074694791ULL)
    #define MC_XXPRIME_2 ((Py_uhash_t)14029467366897019727ULL)
    #define MC_XXPRIME_5 ((Py_uhash_t)2870177450012600261ULL)
    #define MC_MAX_ITEMS 16

    static inline Py_uhash_t mc_step(Py_uhash_t acc, Py_uhash_t lane) {
        acc += lane * MC_XXPRIME_2;
        acc = (acc << 31) | (acc >> 33);
        return acc * MC_XXPRIME_1;
    }

    static inline Py_hash_t mc_finish(Py_uhash_t acc, Py_ssize_t len) {
        acc += (Py_uhash_t)len ^ (MC_XXPRIME_5 ^ 3527539UL);
        if (acc == (Py_uhash_t)-1)
            return 1546275796;
        return (Py_hash_t)acc;
    }

    /* A tuple whose hash is tuple's own (a plain tuple, or a NamedTuple that does not define __hash__). */
    static inline int mc_tuple_hashed(PyObject *o) {
        return PyTuple_Check(o) && Py_TYPE(o)->tp_hash == PyTuple_Type.tp_hash
               && PyTuple_GET_SIZE(o) <= MC_MAX_ITEMS;
    }

    /* The memo of the parent's item y = p[i]: its hash, and, when it is itself a recombinable tuple, its
       items' hashes (from which its hash is combined, so each item is hashed once).  0, or -1 on error. */
    static int mc_memo(PyObject *y, Py_uhash_t *fh, Py_uhash_t *eh, char *have_eh) {
        if (mc_tuple_hashed(y)) {
            Py_ssize_t e, ne = PyTuple_GET_SIZE(y);
            Py_uhash_t acc = MC_XXPRIME_5;
            for (e = 0; e < ne; e++) {
                Py_hash_t lane = PyObject_Hash(PyTuple_GET_ITEM(y, e));
                if (lane == -1)
                    return -1;
                eh[e] = (Py_uhash_t)lane;
                acc = mc_step(acc, eh[e]);
            }
            *fh = (Py_uhash_t)mc_finish(acc, ne);
            *have_eh = 1;
        } else {
            Py_hash_t h = PyObject_Hash(y);
            if (h == -1)
                return -1;
            *fh = (Py_uhash_t)h;
            *have_eh = 0;
        }
        return 0;
    }

    /* hash(t) for t = ts[0 .. ends[-1]), where ts[ends[j-1] .. ends[j]) are successors of parents[j],
       written as int64 into the writable buffer `dest` (at least ends[-1] items of 8 bytes: no int
       object per successor).  The parent's item hashes (and, for an item a successor replaced by one of
       the same tuple type and length, that item's own item hashes) are computed once per parent; an item
       that *is* the parent's takes its hash.  The count written, or -1 with the exception hash() raised. */
    static Py_ssize_t mc_successor_fps(PyObject *parents, PyObject *ends, PyObject *ts, PyObject *dest) {
        Py_ssize_t np = PyList_GET_SIZE(ends), n, j, k = 0;
        Py_uhash_t fh[MC_MAX_ITEMS], eh[MC_MAX_ITEMS][MC_MAX_ITEMS];
        char have_memo[MC_MAX_ITEMS], have_eh[MC_MAX_ITEMS];
        PyObject *p = NULL, *t = NULL;
        Py_buffer view;
        int64_t *out;
        n = np ? PyLong_AsSsize_t(PyList_GET_ITEM(ends, np - 1)) : 0;
        if (n < 0 || n > PyList_GET_SIZE(ts) || np > PyList_GET_SIZE(parents)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "successor_fingerprints: ends do not fit the lists");
            return -1;
        }
        if (PyObject_GetBuffer(dest, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        if (view.itemsize != 8 || view.len < n * 8) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "successor_fingerprints: the output needs ends[-1] int64 items");
            return -1;
        }
        out = (int64_t *)view.buf;
        for (j = 0; j < np; j++) {
            Py_ssize_t end, kk, nf = 0;
            int recombine;
            /* A __hash__ written in Python could change the lists: check them each time, hold what is in use. */
            if (j >= PyList_GET_SIZE(ends) || j >= PyList_GET_SIZE(parents) || n > PyList_GET_SIZE(ts)) {
                PyErr_SetString(PyExc_RuntimeError, "successor_fingerprints: the lists changed");
                goto error;
            }
            end = PyLong_AsSsize_t(PyList_GET_ITEM(ends, j));
            if (end < k || end > n) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "successor_fingerprints: ends must not decrease");
                goto error;
            }
            p = PyList_GET_ITEM(parents, j);
            Py_INCREF(p);
            recombine = mc_tuple_hashed(p);
            if (recombine) {
                nf = PyTuple_GET_SIZE(p);
                memset(have_memo, 0, sizeof(have_memo));
            }
            for (kk = k; kk < end; kk++) {
                Py_hash_t h;
                if (n > PyList_GET_SIZE(ts)) {
                    PyErr_SetString(PyExc_RuntimeError, "successor_fingerprints: the lists changed");
                    goto error;
                }
                t = PyList_GET_ITEM(ts, kk);
                Py_INCREF(t);
                if (!recombine || Py_TYPE(t) != Py_TYPE(p) || PyTuple_GET_SIZE(t) != nf) {
                    h = PyObject_Hash(t);
                    if (h == -1)
                        goto error;
                } else {
                    Py_uhash_t acc = MC_XXPRIME_5;
                    Py_ssize_t i;
                    for (i = 0; i < nf; i++) {
                        PyObject *x = PyTuple_GET_ITEM(t, i), *y = PyTuple_GET_ITEM(p, i);
                        Py_hash_t lane;
                        if (!have_memo[i]) {
                            if (mc_memo(y, &fh[i], eh[i], &have_eh[i]) < 0)
                                goto error;
                            have_memo[i] = 1;
                        }
                        if (x == y) {
                            acc = mc_step(acc, fh[i]);
                            continue;
                        }
                        if (have_eh[i] && Py_TYPE(x) == Py_TYPE(y) && PyTuple_GET_SIZE(x) == PyTuple_GET_SIZE(y)) {
                            Py_ssize_t e, ne = PyTuple_GET_SIZE(y);
                            Py_uhash_t acc2 = MC_XXPRIME_5;
                            for (e = 0; e < ne; e++) {
                                PyObject *xe = PyTuple_GET_ITEM(x, e);
                                if (xe == PyTuple_GET_ITEM(y, e)) {
                                    acc2 = mc_step(acc2, eh[i][e]);
                                } else {
                                    lane = PyObject_Hash(xe);
                                    if (lane == -1)
                                        goto error;
                                    acc2 = mc_step(acc2, (Py_uhash_t)lane);
                                }
                            }
                            lane = mc_finish(acc2, ne);
                        } else {
                            lane = PyObject_Hash(x);
                            if (lane == -1)
                                goto error;
                        }
                        acc = mc_step(acc, (Py_uhash_t)lane);
                    }
                    h = mc_finish(acc, nf);
                }
                Py_CLEAR(t);
                out[kk] = (int64_t)h;
            }
            Py_CLEAR(p);
            k = end;
        }
        PyBuffer_Release(&view);
        return n;
    error:
        Py_XDECREF(t);
        Py_XDECREF(p);
        PyBuffer_Release(&view);
        return -1;
    }
    """
    Py_ssize_t mc_successor_fps(list parents, list ends, list ts, object dest) except -1
