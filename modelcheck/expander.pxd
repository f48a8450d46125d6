# Read by Cython when ``modelcheck compile`` builds modelcheck/expander.py (an augmenting .pxd; the
# build is keyed by this file too).  The compiled ``expand_into`` calls each action on its bindings
# through this C loop: the vectorcall of ``fn(c, s, *binding)`` made directly, with the binding's
# items as borrowed arguments, instead of Cython's generic call of a Python object (a bound-method
# check, an argument array built and every argument's reference count touched per call).  Same
# calls, same order, same results: a list result counts once per element, as in the Python loop.

cdef extern from *:
    """
    #define MC_MAX_ARITY 8

    /* fn(c, s, *b) for every binding b of bs (tuples of `arity` items); append each successor to ts and
       ai to ais.  Returns -1 with the exception set if a call (or an append) fails. */
    static int mc_call_each(PyObject *fn, Py_ssize_t arity, PyObject *c, PyObject *s, PyObject *bs,
                            PyObject *ai, PyObject *ais, PyObject *ts) {
        PyObject *args[2 + MC_MAX_ARITY];
        vectorcallfunc call = PyVectorcall_Function(fn);
        Py_ssize_t i, k, j, n = PyTuple_GET_SIZE(bs);
        args[0] = c;
        args[1] = s;
        for (i = 0; i < n; i++) {
            PyObject *b = PyTuple_GET_ITEM(bs, i);
            PyObject *r;
            if (!PyTuple_Check(b) || PyTuple_GET_SIZE(b) != arity) {
                PyErr_SetString(PyExc_TypeError, "a binding is not a tuple of the action's arity");
                return -1;
            }
            for (k = 0; k < arity; k++)
                args[2 + k] = PyTuple_GET_ITEM(b, k);
            r = call != NULL ? call(fn, args, (size_t)(2 + arity), NULL)
                             : PyObject_Vectorcall(fn, args, (size_t)(2 + arity), NULL);
            if (r == NULL)
                return -1;
            if (r != Py_None) {
                if (PyList_CheckExact(r)) {
                    for (j = 0; j < PyList_GET_SIZE(r); j++) {
                        if (PyList_Append(ais, ai) < 0 || PyList_Append(ts, PyList_GET_ITEM(r, j)) < 0) {
                            Py_DECREF(r);
                            return -1;
                        }
                    }
                } else if (PyList_Append(ais, ai) < 0 || PyList_Append(ts, r) < 0) {
                    Py_DECREF(r);
                    return -1;
                }
            }
            Py_DECREF(r);
        }
        return 0;
    }
    """
    const int MC_MAX_ARITY
    int mc_call_each(object fn, Py_ssize_t arity, object c, object s, tuple bs, object ai, list ais,
                     list ts) except -1
