# Read by Cython when ``modelcheck compile`` builds modelcheck/model/expander.py (an augmenting .pxd; the
# build is keyed by this file too).  The compiled ``expand_into`` is one C loop over a plan built
# once per run: for every action, its function, its vectorcall, its C entry point when it has one (an
# action of a compiled spec, see ``c_entry`` in expander.py), its index and its bindings.  Each call
# ``fn(c, s, *binding)`` is the C entry called directly, or else the vectorcall made directly, with
# the binding's items as borrowed arguments.  Same calls, same order, same results: a list result
# counts once per element, as in the Python loop.  Each result is checked as it is taken: a state
# of the spec's state type (one pointer comparison), a list of them (one per item), or else
# whatever the plan's `check` (modelcheck.model.validate.as_successors) accepts or refuses.

cdef extern from *:
    """
    #define MC_MAX_ARITY 8
    #define MC_PLAN_NAME "modelcheck.model.expander.plan"

    /* A cpdef function of a compiled module, as Cython exports it in __pyx_capi__: its arguments, then
       the flag that skips the lookup of a Python override (meaningless at module level). */
    typedef PyObject *(*mc_entry0)(PyObject *, PyObject *, int);
    typedef PyObject *(*mc_entry1)(PyObject *, PyObject *, PyObject *, int);
    typedef PyObject *(*mc_entry2)(PyObject *, PyObject *, PyObject *, PyObject *, int);
    typedef PyObject *(*mc_entry3)(PyObject *, PyObject *, PyObject *, PyObject *, PyObject *, int);

    typedef struct {
        PyObject *fn;         /* held */
        vectorcallfunc call;  /* fn's vectorcall, or NULL: PyObject_Vectorcall */
        void *entry;          /* fn itself as a C function (of `arity` + 2 arguments and the flag), or NULL */
        Py_ssize_t arity;
        PyObject *ai;         /* held: the action index appended with each successor */
        PyObject *bs;         /* held: the bindings, a tuple of tuples of `arity` items */
    } mc_step;

    typedef struct {
        PyTypeObject *state_type;  /* held: the type of the spec's states */
        PyObject *check;           /* held: check(r, state_type), a list of states or an exception */
        Py_ssize_t n;
        mc_step steps[1];
    } mc_plan;

    static void mc_plan_free(PyObject *capsule) {
        mc_plan *plan = (mc_plan *)PyCapsule_GetPointer(capsule, MC_PLAN_NAME);
        Py_ssize_t i;
        if (plan == NULL)
            return;
        for (i = 0; i < plan->n; i++) {
            Py_XDECREF(plan->steps[i].fn);
            Py_XDECREF(plan->steps[i].ai);
            Py_XDECREF(plan->steps[i].bs);
        }
        Py_XDECREF((PyObject *)plan->state_type);
        Py_XDECREF(plan->check);
        PyMem_Free(plan);
    }

    /* The plan of (ai, fn, bindings, arity) tuples, with entries[i] the C entry of action i: a capsule
       holding the function pointer, or None; the spec's state type and the check of other results.
       Checks once what the loop then assumes. */
    static PyObject *mc_plan_new(PyObject *steps, PyObject *entries, PyObject *state_type, PyObject *check) {
        Py_ssize_t n = PyTuple_GET_SIZE(steps), i, j;
        mc_plan *plan;
        PyObject *capsule;
        if (PyTuple_GET_SIZE(entries) != n) {
            PyErr_SetString(PyExc_ValueError, "one entry per action");
            return NULL;
        }
        plan = (mc_plan *)PyMem_Calloc(1, sizeof(mc_plan) + (size_t)(n > 0 ? n - 1 : 0) * sizeof(mc_step));
        if (plan == NULL)
            return PyErr_NoMemory();
        capsule = PyCapsule_New(plan, MC_PLAN_NAME, mc_plan_free);
        if (capsule == NULL) {
            PyMem_Free(plan);
            return NULL;
        }
        if (!PyType_Check(state_type) || !PyCallable_Check(check)) {
            PyErr_SetString(PyExc_TypeError, "the state type must be a type and the check a callable");
            goto error;
        }
        Py_INCREF(state_type);
        Py_INCREF(check);
        plan->state_type = (PyTypeObject *)state_type;
        plan->check = check;
        for (i = 0; i < n; i++) {
            PyObject *t = PyTuple_GET_ITEM(steps, i), *bs, *entry = PyTuple_GET_ITEM(entries, i);
            mc_step *st = &plan->steps[i];
            if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 4 || !PyTuple_Check(PyTuple_GET_ITEM(t, 2))) {
                PyErr_SetString(PyExc_TypeError, "a plan step is (action index, function, bindings, arity)");
                goto error;
            }
            st->arity = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 3));
            if (st->arity == -1 && PyErr_Occurred())
                goto error;
            if (st->arity < 0 || st->arity > MC_MAX_ARITY) {
                PyErr_Format(PyExc_ValueError, "an action of %zd parameters (at most %d)", st->arity, MC_MAX_ARITY);
                goto error;
            }
            bs = PyTuple_GET_ITEM(t, 2);
            for (j = 0; j < PyTuple_GET_SIZE(bs); j++) {
                PyObject *b = PyTuple_GET_ITEM(bs, j);
                if (!PyTuple_Check(b) || PyTuple_GET_SIZE(b) != st->arity) {
                    PyErr_SetString(PyExc_TypeError, "a binding is not a tuple of the action's arity");
                    goto error;
                }
            }
            plan->n = i + 1;  /* what mc_plan_free releases */
            st->ai = PyTuple_GET_ITEM(t, 0);
            st->fn = PyTuple_GET_ITEM(t, 1);
            st->bs = bs;
            Py_INCREF(st->ai);
            Py_INCREF(st->fn);
            Py_INCREF(st->bs);
            st->call = PyVectorcall_Function(st->fn);
            if (entry != Py_None) {
                if (st->arity > 3) {
                    PyErr_SetString(PyExc_ValueError, "a C entry for an action of more than three parameters");
                    goto error;
                }
                st->entry = PyCapsule_GetPointer(entry, PyCapsule_GetName(entry));
                if (st->entry == NULL)
                    goto error;
            }
        }
        return capsule;
    error:
        Py_DECREF(capsule);
        return NULL;
    }

    /* `entry` when it is fn itself as a C function: `guard` (the "PyObject *" variable its compiled module
       exports beside it) holds fn, and `entry` has `signature`.  None otherwise, or NULL with an error. */
    static PyObject *mc_entry_of(PyObject *fn, PyObject *entry, PyObject *guard, PyObject *signature) {
        const char *sig = PyUnicode_AsUTF8(signature);
        PyObject **held;
        if (sig == NULL)
            return NULL;
        if (!PyCapsule_IsValid(guard, "PyObject *") || !PyCapsule_IsValid(entry, sig))
            Py_RETURN_NONE;
        held = (PyObject **)PyCapsule_GetPointer(guard, "PyObject *");
        if (held == NULL || *held != fn)
            Py_RETURN_NONE;
        Py_INCREF(entry);
        return entry;
    }

    static int mc_append_all(PyObject *list, PyObject *ai, PyObject *ais, PyObject *ts) {
        Py_ssize_t j;
        for (j = 0; j < PyList_GET_SIZE(list); j++)
            if (PyList_Append(ais, ai) < 0 || PyList_Append(ts, PyList_GET_ITEM(list, j)) < 0)
                return -1;
        return 0;
    }

    /* Take the result r of an action (not None): a state, a list of states, or what plan->check makes of it. */
    static int mc_take(mc_plan *plan, PyObject *r, PyObject *ai, PyObject *ais, PyObject *ts) {
        PyObject *items;
        int rc;
        if (Py_TYPE(r) == plan->state_type)
            return PyList_Append(ais, ai) < 0 || PyList_Append(ts, r) < 0 ? -1 : 0;
        if (PyList_CheckExact(r)) {
            Py_ssize_t j;
            for (j = 0; j < PyList_GET_SIZE(r); j++)
                if (Py_TYPE(PyList_GET_ITEM(r, j)) != plan->state_type)
                    break;
            if (j == PyList_GET_SIZE(r))
                return mc_append_all(r, ai, ais, ts);
        }
        items = PyObject_CallFunctionObjArgs(plan->check, r, (PyObject *)plan->state_type, NULL);
        if (items == NULL)
            return -1;
        if (!PyList_CheckExact(items)) {
            Py_DECREF(items);
            PyErr_SetString(PyExc_TypeError, "the result check did not return a list");
            return -1;
        }
        rc = mc_append_all(items, ai, ais, ts);
        Py_DECREF(items);
        return rc;
    }

    /* Every step's calls on s, in order; each successor appended to ts and its action index to ais.
       Returns -1 with the exception set if a call (or an append) fails. */
    static int mc_expand(PyObject *capsule, PyObject *c, PyObject *s, PyObject *ais, PyObject *ts) {
        mc_plan *plan = (mc_plan *)PyCapsule_GetPointer(capsule, MC_PLAN_NAME);
        PyObject *args[2 + MC_MAX_ARITY];
        mc_step *st, *last;
        if (plan == NULL)
            return -1;
        args[0] = c;
        args[1] = s;
        for (st = plan->steps, last = plan->steps + plan->n; st < last; st++) {
            PyObject *const *b = &PyTuple_GET_ITEM(st->bs, 0);
            PyObject *const *end = b + PyTuple_GET_SIZE(st->bs);
            for (; b < end; b++) {
                PyObject *r;
                if (st->entry != NULL) {
                    switch (st->arity) {
                    case 0: r = ((mc_entry0)st->entry)(c, s, 1); break;
                    case 1: r = ((mc_entry1)st->entry)(c, s, PyTuple_GET_ITEM(*b, 0), 1); break;
                    case 2: r = ((mc_entry2)st->entry)(c, s, PyTuple_GET_ITEM(*b, 0), PyTuple_GET_ITEM(*b, 1), 1);
                            break;
                    default: r = ((mc_entry3)st->entry)(c, s, PyTuple_GET_ITEM(*b, 0), PyTuple_GET_ITEM(*b, 1),
                                                        PyTuple_GET_ITEM(*b, 2), 1);
                    }
                } else {
                    Py_ssize_t k;
                    for (k = 0; k < st->arity; k++)
                        args[2 + k] = PyTuple_GET_ITEM(*b, k);
                    r = st->call != NULL ? st->call(st->fn, args, (size_t)(2 + st->arity), NULL)
                                         : PyObject_Vectorcall(st->fn, args, (size_t)(2 + st->arity), NULL);
                }
                if (r == NULL)
                    return -1;
                if (r != Py_None && mc_take(plan, r, st->ai, ais, ts) < 0) {
                    Py_DECREF(r);
                    return -1;
                }
                Py_DECREF(r);
            }
        }
        return 0;
    }
    """
    const int MC_MAX_ARITY
    object mc_plan_new(tuple steps, tuple entries, object state_type, object check)
    object mc_entry_of(object fn, object entry, object guard, str signature)
    int mc_expand(object plan, object c, object s, list ais, list ts) except -1
