# Read by Cython when ``modelcheck compile`` builds modelcheck/memo/kernel.py (an augmenting .pxd; the
# build is keyed by this file too).  The C loop of the component-memo search: see kernel.py for the
# arrays, the statuses and why a parent is either expanded whole or not at all.

cdef extern from *:
    """
    #include <stdint.h>
    #include <stdlib.h>
    #include <string.h>
    #include <stddef.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* AVX2 where the compiler can target it per function (GCC, Clang on x86-64); used only where the CPU
       has it, asked at run time: the build itself stays portable. */
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #define MC_AVX2 1
    #include <immintrin.h>
    #endif

    enum { MC_DONE = 0, MC_MISS = 1, MC_GROW_VISITED = 2, MC_GROW_OUT = 3, MC_GROW_CAND = 4, MC_EVENT = 5 };
    enum {
        MC_ROWS, MC_COMP, MC_EDGES, MC_ROOT, MC_LEAVES, MC_ENTRIES, MC_ACTION_OF,
        MC_VKEYS, MC_OUT_ROWS, MC_OUT_PARENT, MC_OUT_ACTION, MC_OUT_FP, MC_CAND, MC_CAND_ACTION, MC_CAND_FP,
        MC_CAND_FLAG, MC_GEN_BY_ACTION, MC_NEW_BY_ACTION, MC_MISS_FN, MC_MISS_PARENT, MC_MISS_ROWS,
        MC_MISS_NODE, MC_MISS_DEPTH, MC_GUARD_OF, MC_ROW_LEAF, MC_OUT_LEAF, MC_CAND_MASK, MC_CAND_OWN,
        MC_TRUE_MASK, MC_SCRATCH_LEAF, MC_ROW_FP, MC_N_ARRAYS
    };
    /* The scalars array: inputs, outputs, and the place to resume. */
    enum {
        S_I, S_HI, S_N_OUT, S_VCOUNT, S_STATUS, S_W, S_SIMD, S_LEAF_ROWS, S_GENERATED, S_K, S_B,
        S_CONSTRAINT_FN, S_FIRST_CHECK, S_N_CHECKS, S_CHECK_WHEN_TRUE, S_CHECK_ENABLED, S_DEADLOCK,
        S_EV_PARENT, S_EV_CAND, S_EV_MASK, S_EV_DEADLOCK, S_UNUSED_4, S_UNUSED_5, S_CHECK_REPORT, S_N_MISS, S_PROBE,
        S_N_SCALARS
    };

    #define MC_GOLDEN 0x9E3779B97F4A7C15ULL

    /* A leaf of the tries: where its successor entries start, how many (a predicate's: its value), and the
       mask of the components its path read.  One 16-byte record, so that one cache line gives all three
       (three arrays took up to three misses a leaf). */
    typedef struct { int32_t start; int32_t count; uint64_t mask; } mc_leaf;

    /* The first slot of `key` in an open-addressing table of `size` slots (any size, not only powers of
       two: the tables grow by half at three quarters full, so they stay at least half full). */
    static inline uint64_t mc_slot(uint64_t key, uint64_t size) {
        return (uint64_t)(((unsigned __int128)(key * MC_GOLDEN) * size) >> 64);
    }

    /* The edge of inner node `code` for the id `v`: its value, or -1 if not learnt.  The edge table's slot
       `h` is `edges[2h]` (the key, 0 if empty) and `edges[2h + 1]` (the value): both in one cache line,
       where a key array and a value array beside it took two misses a step.  The value is the child's
       code in its low 32 bits and, for an inner child, the component that child reads in the high 32
       (a leaf's value is its negative code): a step needs no load from `comp` before the next. */
    static inline int64_t mc_edge(int32_t code, int32_t v, const int64_t *edges, uint64_t esize) {
        int64_t key = (int64_t)(((((uint64_t)(uint32_t)code) << 32) | (uint32_t)v) + 1);
        uint64_t h = mc_slot((uint64_t)key, esize);
        for (;;) {
            int64_t kk = edges[2 * h];
            if (kk == key) return edges[2 * h + 1];
            if (kk == 0) return -1;
            if (++h == esize) h = 0;
        }
    }

    /* The leaf (-2 - its index) a row reaches from `code`, or -1 at a branch not learnt. */
    static inline int32_t mc_walk(int32_t code, const int32_t *row, const int32_t *comp, const int64_t *edges,
                                  uint64_t esize) {
        int32_t k;
        if (code < 0) return code;
        k = comp[code];
        for (;;) {
            int64_t e = mc_edge(code, row[k], edges, esize);
            code = (int32_t)e;
            if (code < 0) return code;  /* a leaf, or -1 */
            k = (int32_t)(e >> 32);
        }
    }

    /* The same walk, for a miss: the last inner node passed (-1: the root is not learnt) and how many. */
    static void mc_walk_miss(int32_t code, const int32_t *row, const int32_t *comp, const int64_t *edges,
                             uint64_t esize, int32_t *last, int32_t *depth) {
        *last = -1;
        *depth = 0;
        while (code >= 0) {
            *last = code;
            (*depth)++;
            code = (int32_t)mc_edge(code, row[comp[code]], edges, esize);
        }
    }

    /* A row's fingerprint (kernel.row_fp is the same in Python) is the sum of a 64-bit hash of each
       (position, id) pair, mod 2^64 (0 made 1): a successor's is its parent's plus, for each component
       its step changed, the new pair's hash minus the old one's, so a candidate costs a term per change
       rather than a step per component.  Sums of independent 64-bit hashes collide with probability
       about 2^-64 a pair, as a chained hash does. */
    static inline uint64_t mc_z(int64_t k, int32_t x) {
        uint64_t z = (((uint64_t)k << 32) | (uint32_t)x) + MC_GOLDEN;  /* splitmix64's finaliser */
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    /* A bit for each of the leaf slots pl[0 .. n-1] (n <= 64) that is unknown (< 0) or has successors (its
       two low bits 01): the bindings step 1 of mc_memo_expand has work for.  Four slots at a time
       where SSE2 is there: the sign bit of v | (v << 31 & ~(v << 30)) is set exactly then. */
    static inline uint64_t mc_todo(const int32_t *pl, int64_t n) {
        uint64_t todo = 0;
        int64_t b = 0;
    #if defined(__SSE2__)
        for (; b + 4 <= n; b += 4) {
            __m128i v = _mm_loadu_si128((const __m128i *)(pl + b));
            __m128i x = _mm_or_si128(v, _mm_andnot_si128(_mm_slli_epi32(v, 30), _mm_slli_epi32(v, 31)));
            todo |= (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(x)) << b;
        }
    #endif
        for (; b < n; b++) {
            const uint32_t v = (uint32_t)pl[b];
            todo |= (uint64_t)((v | ((v << 31) & ~(v << 30))) >> 31) << b;
        }
        return todo;
    }

    /* Step 3's two loops over a parent's B binding slots `pl` (see there).  mc_gather_masks: each slot's
       mask, `pm[k]`: its leaf's (leaf 0's for an unknown slot, -1) or'ed, for an effect's leaf (low bit
       1), with its guard's union `guard_true[k]`.  mc_keep_leaves: a new state whose step changed the
       components `cm` keeps slot k's leaf where pm[k] and cm share no bit, else -1. */
    static void mc_gather_masks(const int32_t *pl, const mc_leaf *leaves, const uint64_t *guard_true,
                                uint64_t *pm, int64_t B) {
        int64_t k;
        for (k = 0; k < B; k++) {
            const int32_t l = pl[k];
            pm[k] = leaves[(l >> 2) & ~(l >> 31)].mask | (guard_true[k] & -(uint64_t)(l & 1));
        }
    }

    static void mc_keep_leaves(const uint64_t *pm, uint64_t cm, const int32_t *pl, int32_t *ol, int64_t B) {
        int64_t k;
        for (k = 0; k < B; k++)
            ol[k] = (pm[k] & cm) ? -1 : pl[k];
    }

    #ifdef MC_AVX2
    /* The same, four slots at a time: the masks by one gather (a leaf record is 16 bytes, so the index is
       twice the leaf's, in units of 8), the keep test by one 64-bit compare. */
    __attribute__((target("avx2")))
    static void mc_gather_masks_avx2(const int32_t *pl, const mc_leaf *leaves, const uint64_t *guard_true,
                                     uint64_t *pm, int64_t B) {
        const long long *base = (const long long *)((const char *)leaves + offsetof(mc_leaf, mask));
        const __m128i one = _mm_set1_epi32(1);
        int64_t k = 0;
        for (; k + 4 <= B; k += 4) {
            const __m128i l = _mm_loadu_si128((const __m128i *)(pl + k));
            const __m128i idx = _mm_andnot_si128(_mm_srai_epi32(l, 31), _mm_srai_epi32(l, 2));
            __m256i m = _mm256_i32gather_epi64(base, _mm_slli_epi32(idx, 1), 8);
            const __m256i effect = _mm256_sub_epi64(_mm256_setzero_si256(),
                                                    _mm256_cvtepi32_epi64(_mm_and_si128(l, one)));
            m = _mm256_or_si256(m, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(guard_true + k)), effect));
            _mm256_storeu_si256((__m256i *)(pm + k), m);
        }
        mc_gather_masks(pl + k, leaves, guard_true + k, pm + k, B - k);
    }

    __attribute__((target("avx2")))
    static void mc_keep_leaves_avx2(const uint64_t *pm, uint64_t cm, const int32_t *pl, int32_t *ol, int64_t B) {
        const __m256i c = _mm256_set1_epi64x((long long)cm), zero = _mm256_setzero_si256();
        const __m256i low = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        int64_t k = 0;
        for (; k + 4 <= B; k += 4) {
            const __m256i kept = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(pm + k)), c), zero);
            const __m128i keep = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(kept, low));
            const __m128i l = _mm_loadu_si128((const __m128i *)(pl + k));
            _mm_storeu_si128((__m128i *)(ol + k), _mm_or_si128(_mm_and_si128(keep, l), _mm_xor_si128(keep, _mm_set1_epi32(-1))));
        }
        mc_keep_leaves(pm + k, cm, pl + k, ol + k, B - k);
    }
    #endif

    /* Whether this CPU runs the AVX2 loops. */
    static int mc_cpu_avx2(void) {
    #ifdef MC_AVX2
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") ? 1 : 0;
    #else
        return 0;
    #endif
    }

    /* Put key -> value into the pair table `t` of `nt` slots (the key positive; the table has room). */
    static inline void mc_pair_put(int64_t *t, uint64_t nt, int64_t key, int64_t value) {
        uint64_t h = mc_slot((uint64_t)key, nt);
        while (t[2 * h] && t[2 * h] != key) if (++h == nt) h = 0;
        t[2 * h] = key;
        t[2 * h + 1] = value;
    }

    /* 1 if fp was added, 0 if it was there. */
    static inline int mc_visit(uint64_t *vkeys, uint64_t vsize, uint64_t fp, int insert) {
        uint64_t h = mc_slot(fp, vsize);
        for (;;) {
            uint64_t kk = vkeys[h];
            if (kk == fp) return 0;
            if (kk == 0) { if (insert) vkeys[h] = fp; return 1; }
            if (++h == vsize) h = 0;
        }
    }

    /* Expand parents S_I .. S_HI of `rows`: see kernel.py.  Returns the status (also in S_STATUS). */
    /* `table` is int64 [2][MC_N_ARRAYS]: each array's data address, then its length in items.  The
       caller keeps the arrays alive and C-contiguous of the documented types, and rebuilds the table
       whenever it replaces one (one buffer here, not one per array: a call costs little). */
    static int64_t mc_memo_expand(PyObject *table, PyObject *scalars) {
        Py_buffer tv, sv;
        void *p[MC_N_ARRAYS];
        Py_ssize_t len[MC_N_ARRAYS];
        int64_t *S, status = MC_DONE;
        int j;
        if (PyObject_GetBuffer(scalars, &sv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        if (PyObject_GetBuffer(table, &tv, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&sv); return -1; }
        if (sv.itemsize != 8 || sv.len < S_N_SCALARS * 8 || tv.itemsize != 8 || tv.len < 2 * MC_N_ARRAYS * 8) {
            PyBuffer_Release(&sv);
            PyBuffer_Release(&tv);
            PyErr_SetString(PyExc_ValueError, "memo kernel: wrong scalars or array table");
            return -1;
        }
        S = (int64_t *)sv.buf;
        for (j = 0; j < MC_N_ARRAYS; j++) {
            p[j] = (void *)(intptr_t)((const int64_t *)tv.buf)[j];
            len[j] = (Py_ssize_t)((const int64_t *)tv.buf)[MC_N_ARRAYS + j];
        }
        {
            const int32_t *rows = p[MC_ROWS], *comp = p[MC_COMP], *root = p[MC_ROOT];
            const mc_leaf *leaves = p[MC_LEAVES];
            const int32_t *entries = p[MC_ENTRIES];
            const int32_t *action_of = p[MC_ACTION_OF], *guard_of = p[MC_GUARD_OF];
            const uint64_t *true_mask = p[MC_TRUE_MASK];
            int32_t *row_leaf = p[MC_ROW_LEAF];
            const uint64_t *row_fp = p[MC_ROW_FP];
            int32_t *out_leaf = p[MC_OUT_LEAF], *cand_own = p[MC_CAND_OWN], *scratch = p[MC_SCRATCH_LEAF];
            uint64_t *cand_mask = p[MC_CAND_MASK];
            const int64_t W = S[S_W], NOWN = W - S[S_B], leaf_rows = S[S_LEAF_ROWS];  /* own leaves after B bindings' */
            /* Leaves are kept for the first states of a level only (the bank's rows): past them, a
               parent's leaves are in `scratch`, all unknown. */
            const int64_t out_leaf_rows = W ? len[MC_OUT_LEAF] / W : 0;
            const int64_t *edges = p[MC_EDGES];
            uint64_t *vkeys = p[MC_VKEYS], *out_fp = p[MC_OUT_FP], *cand_fp = p[MC_CAND_FP];
            int32_t *out_rows = p[MC_OUT_ROWS], *out_parent = p[MC_OUT_PARENT], *out_action = p[MC_OUT_ACTION];
            int32_t *cand = p[MC_CAND], *cand_action = p[MC_CAND_ACTION], *cand_flag = p[MC_CAND_FLAG];
            int64_t *gen_by_action = p[MC_GEN_BY_ACTION], *new_by_action = p[MC_NEW_BY_ACTION];
            const int64_t K = S[S_K], B = S[S_B], hi = S[S_HI];
            const int64_t constraint_fn = S[S_CONSTRAINT_FN], first_check = S[S_FIRST_CHECK], n_checks = S[S_N_CHECKS];
            const int64_t when_true = S[S_CHECK_WHEN_TRUE];
            const uint64_t esize = (uint64_t)len[MC_EDGES] / 2, vsize = (uint64_t)len[MC_VKEYS];
            const int64_t ccap = len[MC_CAND_ACTION], ocap = len[MC_OUT_PARENT];
            int32_t *miss_fn = p[MC_MISS_FN], *miss_parent = p[MC_MISS_PARENT], *miss_rows = p[MC_MISS_ROWS];
            int32_t *miss_node = p[MC_MISS_NODE], *miss_depth = p[MC_MISS_DEPTH];
            const int64_t mcap = len[MC_MISS_FN], probe = S[S_PROBE];
            const int avx2 = S[S_SIMD] && mc_cpu_avx2();
            int64_t i = S[S_I], n_out = S[S_N_OUT], vcount = S[S_VCOUNT];
            int64_t n_miss = 0, first_miss = -1, end = hi;
            /* Each binding's guard's true_mask (0 without a guard), for step 3: learning only adds to them,
               between calls. */
            uint64_t *guard_true = malloc(2 * (B > 0 ? B : 1) * sizeof(uint64_t)), *pm;
            if (!guard_true) {
                PyBuffer_Release(&tv);
                PyBuffer_Release(&sv);
                PyErr_NoMemory();
                return -1;
            }
            pm = guard_true + (B > 0 ? B : 1);  /* step 3's masks of one parent's slots */
            for (j = 0; j < B; j++)
                guard_true[j] = guard_of[j] >= 0 ? true_mask[guard_of[j]] : 0;
            /* A walk that reaches a branch not learnt yet is noted (function, row); from the first such
               parent on nothing is kept, and up to `probe` more parents are only walked, to note their
               misses too, so that the caller learns many branches per call. */
            #define MC_NOTE_MISS(fn, r) do { \
                if (n_miss < mcap) { \
                    miss_fn[n_miss] = (int32_t)(fn); miss_parent[n_miss] = (int32_t)i; \
                    memcpy(miss_rows + n_miss * K, (r), K * sizeof(int32_t)); \
                    mc_walk_miss(root[fn], (r), comp, edges, esize, miss_node + n_miss, \
                                 miss_depth + n_miss); \
                    n_miss++; \
                } \
                missed = 1; \
            } while (0)
            for (; i < end; i++) {
                const int32_t *row = rows + i * K;
                int32_t *pl = i < leaf_rows ? row_leaf + i * W : scratch;
                int64_t nc = 0, b, c, k, s, base;
                int fired = 0, missed = 0, have_pm = 0;
                /* The parent's own sum is its fingerprint, unless that is 1 (a sum of 0 is made 1). */
                uint64_t rz = row_fp[i];
                int32_t code, leaf;
                if (rz == 1)
                    for (rz = 0, k = 0; k < K; k++) rz += mc_z(k, row[k]);
                if (pl == scratch)
                    for (k = 0; k < W; k++) scratch[k] = -1;
                /* 1. Every successor, by the tries.  The parent's leaves `pl` are those its own parent's
                   step left valid, or -1; a walk's leaf is written there (a parent expanded again after a
                   miss does not walk twice).  A binding's slot holds 4 * (its effect's leaf) + 1, or + 3
                   where that leaf has no successor, or for a split action whose guard fails, 4 * (the
                   guard's leaf).  Most slots hold a leaf without successors, known: the bindings left
                   (unknown, or with successors) are found 64 at a time as the bits of a mask, without a
                   branch or a leaf's record read per binding.  (With four slot values a leaf, an int32
                   holds 2^29 leaves: 8 GiB of leaf records, more than the memory this runs in.) */
                for (base = 0; base < B; base += 64) {
                  uint64_t todo = mc_todo(pl + base, B - base < 64 ? B - base : 64);
                  for (; todo; todo &= todo - 1) {
                    int32_t v;
                    b = base + __builtin_ctzll(todo);
                    v = pl[b];
                    if (v < 0) {
                        if (guard_of[b] >= 0) {  /* a split action: its guard's tree, then its effect's */
                            code = mc_walk(root[guard_of[b]], row, comp, edges, esize);
                            if (code == -1) { MC_NOTE_MISS(guard_of[b], row); continue; }
                            if (!leaves[-2 - code].count) { pl[b] = 4 * (-2 - code); continue; }
                        }
                        code = mc_walk(root[b], row, comp, edges, esize);
                        if (code == -1) { MC_NOTE_MISS(b, row); continue; }
                        pl[b] = v = 4 * (-2 - code) + (leaves[-2 - code].count ? 1 : 3);
                    }
                    if ((v & 3) != 1)
                        continue;  /* the guard fails, or the effect has no successor */
                    leaf = v >> 2;
                    if (missed || first_miss >= 0) continue;  /* nothing is kept: only misses are noted */
                    {
                        int32_t cnt = leaves[leaf].count;
                        const int32_t *e = entries + leaves[leaf].start;
                        if (nc + cnt > ccap) {
                            if (first_miss >= 0) goto probed;
                            status = MC_GROW_CAND;
                            goto stop;
                        }
                        /* A successor's entries are its changes: how many, then (component, entry) each,
                           an entry being an id or ~k for the parent's component k.  Its fingerprint is
                           taken as it is written, and its visited slot prefetched: the walks of the
                           bindings after it hide the miss. */
                        for (s = 0; s < cnt; s++, nc++) {
                            int32_t *t = cand + nc * K;
                            int32_t n_changes = *e++;
                            uint64_t changed = 0, h = rz;
                            memcpy(t, row, K * sizeof(int32_t));
                            for (; n_changes > 0; n_changes--, e += 2) {
                                int32_t at = e[0], v = e[1], x = v >= 0 ? v : row[~v];
                                if (x == row[at]) continue;  /* an equal value, built anew */
                                h += mc_z(at, x) - mc_z(at, row[at]);
                                changed |= (uint64_t)1 << (at & 63);
                                t[at] = x;
                            }
                            cand_fp[nc] = h = h ? h : 1;
                            __builtin_prefetch(vkeys + mc_slot(h, vsize));
                            cand_action[nc] = action_of[b];
                            cand_mask[nc] = changed;
                        }
                    }
                  }
                }
                /* 2. The constraint, and the checks of those not seen before (still nothing kept). */
                /* A candidate's own leaves (constraint, checks) are the parent's where its step changed
                   nothing they read; they are kept with it, for its own successors. */
                #define MC_OWN_LEAF(slot, fn, t, out) do { \
                    int32_t l_ = pl[B + (slot)]; \
                    if (l_ < 0 || (leaves[l_].mask & cand_mask[c])) { \
                        code = mc_walk(root[fn], (t), comp, edges, esize); \
                        l_ = code == -1 ? -1 : -2 - code; \
                    } \
                    (out) = l_; \
                } while (0)
                for (c = 0; c < nc && !missed && first_miss < 0; c++) {
                    const int32_t *t = cand + c * K;
                    int32_t *own = cand_own + c * NOWN;
                    int32_t flag = 0;
                    for (k = 0; k < NOWN; k++) own[k] = -1;
                    if (constraint_fn >= 0) {
                        MC_OWN_LEAF(0, constraint_fn, t, own[0]);
                        if (own[0] == -1) { MC_NOTE_MISS(constraint_fn, t); break; }
                        if (!leaves[own[0]].count) { cand_flag[c] = 0; continue; }
                    }
                    flag = 1;
                    if (mc_visit(vkeys, vsize, cand_fp[c], 0)) {
                        flag |= 2;
                        for (k = 0; k < n_checks; k++) {
                            int32_t *o = own + (constraint_fn >= 0) + k;
                            if (!((S[S_CHECK_ENABLED] >> k) & 1)) continue;
                            MC_OWN_LEAF((constraint_fn >= 0) + k, first_check + k, t, *o);
                            if (*o == -1) { MC_NOTE_MISS(first_check + k, t); break; }
                            if ((leaves[*o].count != 0) == ((when_true >> k) & 1))
                                flag |= 4 << k;
                        }
                    }
                    cand_flag[c] = flag;
                }
                #undef MC_OWN_LEAF
                if (missed || first_miss >= 0) {
                    if (first_miss < 0) {
                        first_miss = i;
                        end = i + 1 + probe < hi ? i + 1 + probe : hi;
                    }
                    if (n_miss >= mcap) break;
                    continue;
                }
                if ((uint64_t)(vcount + nc) * 4 > vsize * 3) { status = MC_GROW_VISITED; goto stop; }
                if (n_out + nc > ocap) { status = MC_GROW_OUT; goto stop; }
                /* 3. Keep the parent's expansion. */
                S[S_GENERATED] += nc;
                for (c = 0; c < nc; c++) {
                    gen_by_action[cand_action[c]]++;
                    if ((cand_flag[c] & 3) == 3 && mc_visit(vkeys, vsize, cand_fp[c], 1)) {
                        vcount++;
                        memcpy(out_rows + n_out * K, cand + c * K, K * sizeof(int32_t));
                        if (n_out < out_leaf_rows) {
                            int32_t *ol = out_leaf + n_out * W;
                            const uint64_t cm = cand_mask[c];
                            /* An effect's leaf stands while its path and the paths of every state its
                               guard ever held on (guard_true, by binding) are unchanged.  Those masks
                               are gathered once per parent (pm), at its first new state, so that each
                               new state only tests its changes against them.  Without a branch: every
                               slot is known here (step 1 walked each, or noted a miss and the parent
                               is not kept), but an unknown one (-1) would read leaf 0 and stay -1. */
                            if (!have_pm) {
                            #ifdef MC_AVX2
                                if (avx2) mc_gather_masks_avx2(pl, leaves, guard_true, pm, B); else
                            #endif
                                mc_gather_masks(pl, leaves, guard_true, pm, B);
                                have_pm = 1;
                            }
                        #ifdef MC_AVX2
                            if (avx2) mc_keep_leaves_avx2(pm, cm, pl, ol, B); else
                        #endif
                            mc_keep_leaves(pm, cm, pl, ol, B);
                            memcpy(ol + B, cand_own + c * NOWN, NOWN * sizeof(int32_t));
                        }
                        out_parent[n_out] = (int32_t)i;
                        out_action[n_out] = cand_action[c];
                        out_fp[n_out] = cand_fp[c];
                        new_by_action[cand_action[c]]++;
                        n_out++;
                        if ((cand_flag[c] >> 2) & S[S_CHECK_REPORT])
                            fired = 1;
                    }
                }
                if (fired || (nc == 0 && S[S_DEADLOCK])) {
                    /* The parent's candidates and flags stay in the scratch arrays for the caller. */
                    S[S_EV_PARENT] = i;
                    S[S_EV_CAND] = nc;
                    S[S_EV_MASK] = fired;
                    S[S_EV_DEADLOCK] = nc == 0 && S[S_DEADLOCK];
                    i++;
                    status = MC_EVENT;
                    goto stop;
                }
            }
        probed:
            if (first_miss >= 0) {
                i = first_miss;
                status = MC_MISS;
            }
            S[S_N_MISS] = n_miss;
            #undef MC_NOTE_MISS
        stop:
            S[S_I] = i;
            S[S_N_OUT] = n_out;
            S[S_VCOUNT] = vcount;
            S[S_STATUS] = status;
            free(guard_true);
        }
        PyBuffer_Release(&tv);
        PyBuffer_Release(&sv);
        return status;
    }

    /* Re-insert the non-zero keys of `old` into the empty, larger table `new` (the visited set). */
    static int64_t mc_rehash(PyObject *old, PyObject *new) {
        Py_buffer a, b;
        int64_t n = 0;
        if (PyObject_GetBuffer(old, &a, PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (PyObject_GetBuffer(new, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&a); return -1; }
        {
            const uint64_t *ok = a.buf;
            uint64_t *nk = b.buf;
            Py_ssize_t na = a.len / 8, nb = b.len / 8, j;
            for (j = 0; j < na; j++) {
                uint64_t key = ok[j], h;
                if (!key) continue;
                h = mc_slot(key, (uint64_t)nb);
                while (nk[h]) if (++h == (uint64_t)nb) h = 0;
                nk[h] = key;
                n++;
            }
        }
        PyBuffer_Release(&a); PyBuffer_Release(&b);
        return n;
    }

    /* Insert keys[j] -> vals[j] (keys distinct from those present, positive) into the pair table `edges`. */
    static int64_t mc_pair_insert(PyObject *edges, PyObject *keys, PyObject *vals) {
        Py_buffer a, b, bv;
        int64_t n = 0;
        if (PyObject_GetBuffer(edges, &a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (PyObject_GetBuffer(keys, &b, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&a); return -1; }
        if (PyObject_GetBuffer(vals, &bv, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&a); PyBuffer_Release(&b); return -1; }
        {
            int64_t *t = a.buf;
            const int64_t *k = b.buf, *v = bv.buf;
            uint64_t nt = (uint64_t)(a.len / 16);
            Py_ssize_t nk = b.len / 8, j;
            for (j = 0; j < nk; j++) {
                mc_pair_put(t, nt, k[j], v[j]);
                n++;
            }
        }
        PyBuffer_Release(&a); PyBuffer_Release(&b); PyBuffer_Release(&bv);
        return n;
    }

    /* Re-insert the pairs of `old` into the empty, larger pair table `new`. */
    static int64_t mc_pair_rehash(PyObject *old, PyObject *new) {
        Py_buffer a, b;
        int64_t n = 0;
        if (PyObject_GetBuffer(old, &a, PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (PyObject_GetBuffer(new, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&a); return -1; }
        {
            const int64_t *o = a.buf;
            int64_t *t = b.buf;
            uint64_t na = (uint64_t)(a.len / 16), nb = (uint64_t)(b.len / 16), j;
            for (j = 0; j < na; j++) {
                if (!o[2 * j]) continue;
                mc_pair_put(t, nb, o[2 * j], o[2 * j + 1]);
                n++;
            }
        }
        PyBuffer_Release(&a); PyBuffer_Release(&b);
        return n;
    }

    /* Write list[start:] (ints) into the array `arr` from item `at` on, as int32 (4-byte items) or as 64-bit
       words (8-byte items, any int below 2^64 taken modulo 2^64): what is learnt reaches the C tables in
       one call, not through a numpy array made of each list first.  The caller made room. */
    static int64_t mc_put_list(PyObject *arr, int64_t at, PyObject *list, int64_t start) {
        Py_buffer a;
        Py_ssize_t n, j;
        if (!PyList_Check(list)) { PyErr_SetString(PyExc_TypeError, "memo kernel: put_list takes a list"); return -1; }
        if (PyObject_GetBuffer(arr, &a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
        n = PyList_GET_SIZE(list) - start;
        if (start < 0 || n < 0 || at < 0 || (a.itemsize != 4 && a.itemsize != 8) || (at + n) * a.itemsize > a.len) {
            PyBuffer_Release(&a);
            PyErr_SetString(PyExc_ValueError, "memo kernel: put_list out of the array's bounds");
            return -1;
        }
        for (j = 0; j < n; j++) {
            PyObject *x = PyList_GET_ITEM(list, start + j);
            if (a.itemsize == 4) {
                long long v = PyLong_AsLongLong(x);
                if (v == -1 && PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
                if (v < INT32_MIN || v > INT32_MAX) {
                    PyBuffer_Release(&a);
                    PyErr_SetString(PyExc_OverflowError, "memo kernel: put_list: an int32 out of range");
                    return -1;
                }
                ((int32_t *)a.buf)[at + j] = (int32_t)v;
            } else {
                unsigned long long v = PyLong_AsUnsignedLongLongMask(x);
                if (v == (unsigned long long)-1 && PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
                ((uint64_t *)a.buf)[at + j] = (uint64_t)v;
            }
        }
        PyBuffer_Release(&a);
        return n;
    }

    /* Write leaf records (mc_leaf) from item `at` on of the array `leaves`: starts[j], counts[j], masks[j]. */
    static int64_t mc_put_leaves(PyObject *leaves, int64_t at, PyObject *starts, PyObject *counts, PyObject *masks) {
        Py_buffer a;
        Py_ssize_t n, j;
        if (!PyList_Check(starts) || !PyList_Check(counts) || !PyList_Check(masks)) {
            PyErr_SetString(PyExc_TypeError, "memo kernel: put_leaves takes lists");
            return -1;
        }
        n = PyList_GET_SIZE(starts);
        if (PyList_GET_SIZE(counts) != n || PyList_GET_SIZE(masks) != n) {
            PyErr_SetString(PyExc_ValueError, "memo kernel: put_leaves: lists of different lengths");
            return -1;
        }
        if (PyObject_GetBuffer(leaves, &a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (a.itemsize != sizeof(mc_leaf) || at < 0 || (at + n) * a.itemsize > a.len) {
            PyBuffer_Release(&a);
            PyErr_SetString(PyExc_ValueError, "memo kernel: put_leaves out of the array's bounds");
            return -1;
        }
        for (j = 0; j < n; j++) {
            mc_leaf *l = (mc_leaf *)a.buf + at + j;
            long long st = PyLong_AsLongLong(PyList_GET_ITEM(starts, j));
            long long ct = PyLong_AsLongLong(PyList_GET_ITEM(counts, j));
            unsigned long long m = PyLong_AsUnsignedLongLongMask(PyList_GET_ITEM(masks, j));
            if (PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
            if (st < 0 || st > INT32_MAX || ct < INT32_MIN || ct > INT32_MAX) {
                PyBuffer_Release(&a);
                PyErr_SetString(PyExc_OverflowError, "memo kernel: put_leaves: a start or count out of range");
                return -1;
            }
            l->start = (int32_t)st;
            l->count = (int32_t)ct;
            l->mask = (uint64_t)m;
        }
        PyBuffer_Release(&a);
        return n;
    }

    /* Insert the edges of `pending` (a dict: key -> child code) into the pair table `edges`, each value the
       child's code and, for an inner child (code >= 0), 32 bits above it the component it reads,
       comps[code] (tries._edge_value).  The keys are positive and not in the table yet, which has room. */
    static int64_t mc_pair_insert_codes(PyObject *edges, PyObject *pending, PyObject *comps) {
        Py_buffer a;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        int64_t n = 0;
        if (!PyDict_Check(pending) || !PyList_Check(comps)) {
            PyErr_SetString(PyExc_TypeError, "memo kernel: pair_insert_codes takes a dict and a list");
            return -1;
        }
        if (PyObject_GetBuffer(edges, &a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (a.itemsize != 8) {
            PyBuffer_Release(&a);
            PyErr_SetString(PyExc_ValueError, "memo kernel: the edge table is int64");
            return -1;
        }
        {
            int64_t *t = a.buf;
            const uint64_t nt = (uint64_t)(a.len / 16);
            while (PyDict_Next(pending, &pos, &key, &value)) {
                long long k = PyLong_AsLongLong(key), code = PyLong_AsLongLong(value), v = code;
                if (PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
                if (code >= 0) {
                    long long comp;
                    if (code >= PyList_GET_SIZE(comps)) {
                        PyBuffer_Release(&a);
                        PyErr_SetString(PyExc_ValueError, "memo kernel: an edge to a node not made");
                        return -1;
                    }
                    comp = PyLong_AsLongLong(PyList_GET_ITEM(comps, code));
                    if (comp == -1 && PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
                    v = (long long)(((uint64_t)comp << 32) | (uint64_t)code);
                }
                if (k <= 0 || (uint64_t)n >= nt) {
                    PyBuffer_Release(&a);
                    PyErr_SetString(PyExc_ValueError, "memo kernel: a key not positive, or no room");
                    return -1;
                }
                mc_pair_put(t, nt, k, v);
                n++;
            }
        }
        PyBuffer_Release(&a);
        return n;
    }
    """
    long long mc_memo_expand(object table, object scalars) except -1
    long long mc_rehash(object old, object new) except -1
    long long mc_pair_insert(object edges, object keys, object vals) except -1
    long long mc_pair_rehash(object old, object new) except -1
    long long mc_put_list(object arr, long long at, object values, long long start) except -1
    long long mc_put_leaves(object leaves, long long at, object starts, object counts, object masks) except -1
    long long mc_pair_insert_codes(object edges, object pending, object comps) except -1
