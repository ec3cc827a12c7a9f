/* The junction fit's solve (docs/rig.md "The junction fit"): with every edge's deformed
 * direction fixed, the weights are one sparse least-squares problem (the edge term, a graph
 * Laplacian of the change from the rig's weights, a small pull towards them), summing to one
 * by eliminating one weight per vertex, solved with CHOLMOD; then projected onto
 * non-negative weights with at most four influences. */
#include "junction_internal.h"

#include <cholmod.h>
#include <math.h>
#include <string.h>

static void group_position(const fit* f, uint32_t g, uint32_t t, const float* b, float out[3]) {
    const float* m = f->mats + ((size_t)t * f->G + g) * 12;
    for (int r = 0; r < 3; ++r)
        out[r] = m[4 * r] * b[0] + m[4 * r + 1] * b[1] + m[4 * r + 2] * b[2] + m[4 * r + 3];
}

void rig_fit_wset_positions(const fit* f, const wset* s, const float* b, float* out) {
    for (uint32_t t = 0; t < f->P; ++t) {
        float* o = out + 3 * (size_t)t;
        o[0] = o[1] = o[2] = 0;
        for (uint32_t k = 0; k < s->n; ++k) {
            float x[3];
            group_position(f, s->j[k], t, b, x);
            for (int r = 0; r < 3; ++r)
                o[r] += s->w[k] * x[r];
        }
    }
}

void rig_fit_free_positions(const fit* f, uint32_t i) {
    if (f->cpos) { /* the candidates' positions, as group_position gives them, summed alike */
        float* out = f->pos + (size_t)i * f->P * 3;
        memset(out, 0, (size_t)f->P * 3 * sizeof *out);
        for (uint32_t c = 0; c < f->ncand[i]; ++c) {
            float wc = (float)f->w[i * FIT_CANDIDATES + c];
            if (!(f->w[i * FIT_CANDIDATES + c] > 0)) continue;
            const float* a = f->cpos + ((size_t)i * FIT_CANDIDATES + c) * f->P * 3;
            for (uint32_t t = 0; t < 3 * f->P; ++t)
                out[t] += wc * a[t];
        }
        return;
    }
    wset s = {0};
    for (uint32_t c = 0; c < f->ncand[i]; ++c)
        if (f->w[i * FIT_CANDIDATES + c] > 0)
            wset_add(&s, f->cand[i * FIT_CANDIDATES + c], (float)f->w[i * FIT_CANDIDATES + c]);
    rig_fit_wset_positions(f, &s, f->bind + 3 * (size_t)i, f->pos + (size_t)i * f->P * 3);
}

/* The extra weights of free vertex i's edge at adjacency slot k (P of them). */
static const float* edge_omega(const fit* f, uint32_t i, uint32_t k) {
    return f->omega + ((size_t)f->eoff[i] + (k - f->ctx->adj_off[f->verts[i]])) * f->P;
}

/* Free vertex i bound wholly to its candidate c, at pose t. */
static const float* cand_position(const fit* f, uint32_t i, uint32_t c, uint32_t t) {
    return f->cpos + (((size_t)i * FIT_CANDIDATES + c) * f->P + t) * 3;
}

static double dot3(const float* a, const float* b) {
    return (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
}

/* b_i^T Q_gh b_j with homogeneous bind positions. */
static double quad(const fit* f, uint32_t g, uint32_t h, const float* bi, const float* bj) {
    const double* q = f->Q + ((size_t)g * f->G + h) * 16;
    double x[4] = {bi[0], bi[1], bi[2], 1}, y[4] = {bj[0], bj[1], bj[2], 1}, s = 0;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            s += x[r] * q[4 * r + c] * y[c];
    return s;
}

void rig_fit_to_groups(const fit* f, const wset* joints, wset* out) {
    *out = (wset){0};
    for (uint32_t k = 0; k < joints->n; ++k)
        if (joints->j[k] < f->joint_total && f->group_of[joints->j[k]] >= 0)
            wset_add(out, (uint32_t)f->group_of[joints->j[k]], joints->w[k]);
}

/* The edge term over every edge touching the free set (the fit's energy, for the report). */
double rig_fit_energy(const fit* f) {
    const rig_ctx* ctx = f->ctx;
    double e = 0;
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t v = f->verts[i];
        const float* pi = f->pos + (size_t)i * f->P * 3;
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (j < 0 || ((uint32_t)j < f->nf && (uint32_t)j < i) || !(L > 1e-6f * ctx->H))
                continue;
            const float* pj = f->pos + (size_t)j * f->P * 3;
            for (uint32_t t = 0; t < f->P; ++t) {
                float d[3] = {pi[3 * t] - pj[3 * t], pi[3 * t + 1] - pj[3 * t + 1],
                              pi[3 * t + 2] - pj[3 * t + 2]};
                float r = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / L;
                e += (double)(r - 1) * (r - 1);
            }
        }
    }
    return f->P ? e / f->P : 0;
}

/* One global step's working arrays. The unknowns are, per free vertex, its active candidates
 * but the reference (its largest active one), which the sum to one eliminates. */
typedef struct step {
    uint32_t* ref; /* nf: the reference candidate */
    int32_t* var;  /* nf × FIT_CANDIDATES: the unknown of (i, c), or -1 */
    uint32_t n;    /* unknowns */
    double* fvec;  /* nf × FIT_CANDIDATES: the full-space linear term */
    double* red;   /* nf × FIT_CANDIDATES: the linear term reduced to the unknowns */
    double* q;     /* P × 4 scratch */
} step;

static void number_unknowns(const fit* f, step* s) {
    uint32_t C = FIT_CANDIDATES;
    s->n = 0;
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t best = 0;
        double bw = -1;
        for (uint32_t c = 0; c < f->ncand[i]; ++c)
            if (f->active[i * C + c] && f->w[i * C + c] > bw) bw = f->w[i * C + c], best = c;
        s->ref[i] = best;
        for (uint32_t c = 0; c < C; ++c)
            s->var[i * C + c] =
                (c < f->ncand[i] && f->active[i * C + c] && c != best) ? (int32_t)s->n++ : -1;
    }
}

/* The full-space linear term of free vertex i: the edges' fixed directions, fixed
 * neighbours' positions, the Laplacian to fixed weights, the pull. */
static void linear_term(const fit* f, uint32_t i, double* q, double* fi) {
    const rig_ctx* ctx = f->ctx;
    uint32_t P = f->P, C = FIT_CANDIDATES, v = f->verts[i];
    double lambda = ctx->def->junction_smooth, mu = ctx->def->junction_pull;
    const float* pi = f->pos + (size_t)i * P * 3;
    double* len = q + (size_t)P * 3; /* P scratch after the P × 3 sums */
    memset(q, 0, (size_t)P * 3 * sizeof *q);
    for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
        int32_t j = f->local[ctx->adj[k]];
        float L = ctx->adj_len[k];
        if (j < 0 || !(L > 1e-6f * ctx->H)) continue;
        const float* pj = f->pos + (size_t)j * P * 3;
        const float* om = edge_omega(f, i, k);
        double inv_l2 = 1.0 / ((double)L * L);
        if ((uint32_t)j >= f->nf) /* a fixed neighbour's position */
            for (uint32_t t = 0; t < P; ++t) {
                double wt = 1.0 + om[t];
                for (int r = 0; r < 3; ++r)
                    q[3 * t + r] += wt * inv_l2 * pj[3 * t + r];
            }
        /* the squared lengths, their roots in a plain loop (the compiler batches them), then
           the directions; a zero-length sample adds +0 (as skipping it would, to the bit) */
        for (uint32_t t = 0; t < P; ++t) {
            double d[3] = {pi[3 * t] - pj[3 * t], pi[3 * t + 1] - pj[3 * t + 1],
                           pi[3 * t + 2] - pj[3 * t + 2]};
            len[t] = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        }
        for (uint32_t t = 0; t < P; ++t)
            len[t] = sqrt(len[t]);
        for (uint32_t t = 0; t < P; ++t) {
            double d[3] = {pi[3 * t] - pj[3 * t], pi[3 * t + 1] - pj[3 * t + 1],
                           pi[3 * t + 2] - pj[3 * t + 2]};
            double wt = 1.0 + om[t];
            double s = len[t] > 1e-12 ? wt / (len[t] * L) : 0;
            for (int r = 0; r < 3; ++r)
                q[3 * t + r] += s * d[r];
        }
        /* the Laplacian of the change from the rig's weights: λ Σ_e |(w_i - r_i) -
           (w_j - r_j)|², so the body's own weight boundaries stay where evidence is weak */
        for (uint32_t c = 0; c < f->ncand[i]; ++c) {
            double rj = 0;
            for (uint32_t m = 0; m < f->rig[j].n; ++m)
                if (f->rig[j].j[m] == f->cand[i * C + c]) rj = f->rig[j].w[m];
            double ri = f->wrig[i * C + c];
            fi[c] += (uint32_t)j >= f->nf ? lambda * ri : lambda * (ri - rj);
        }
    }
    for (uint32_t c = 0; c < f->ncand[i]; ++c) {
        double s = 0;
        for (uint32_t t = 0; t < P; ++t) {
            const float* a = cand_position(f, i, c, t);
            s += a[0] * q[3 * t] + a[1] * q[3 * t + 1] + a[2] * q[3 * t + 2];
        }
        fi[c] += s / P + mu * f->wrig[i * C + c];
    }
}

typedef double block[FIT_CANDIDATES][FIT_CANDIDATES];

/* The unit-weight part of free vertex i's Hessian block with itself: Σ_e 1/(P L²) S_ii +
 * (λ deg + μ) I. It does not change over the passes (the candidates, bind positions and pose
 * sums are fixed), so it is computed once (block_bases). */
static void diagonal_base(const fit* f, uint32_t i, block B) {
    const rig_ctx* ctx = f->ctx;
    uint32_t P = f->P, C = FIT_CANDIDATES, v = f->verts[i], ni = f->ncand[i];
    double lambda = ctx->def->junction_smooth, mu = ctx->def->junction_pull;
    const float* bi = f->bind + 3 * (size_t)i;
    double inv = 0;
    uint32_t deg = 0;
    for (uint32_t e = ctx->adj_off[v]; e < ctx->adj_off[v + 1]; ++e) {
        float L = ctx->adj_len[e];
        if (f->local[ctx->adj[e]] < 0 || !(L > 1e-6f * ctx->H)) continue;
        inv += 1.0 / ((double)L * L);
        ++deg;
    }
    for (uint32_t a = 0; a < ni; ++a)
        for (uint32_t b = 0; b < ni; ++b)
            B[a][b] = inv / P * quad(f, f->cand[i * C + a], f->cand[i * C + b], bi, bi) +
                      (a == b ? lambda * deg + mu : 0);
}

/* The Hessian block of free vertex i with itself: its base plus the reweighted samples. */
static void diagonal_block(const fit* f, const block base, uint32_t i, double* wt, block B) {
    const rig_ctx* ctx = f->ctx;
    uint32_t P = f->P, v = f->verts[i], ni = f->ncand[i];
    memcpy(B, base, sizeof(block));
    /* the reweighted edge samples, summed over the vertex's edges per pose (wt: P) */
    memset(wt, 0, (size_t)P * sizeof *wt);
    for (uint32_t e = ctx->adj_off[v]; e < ctx->adj_off[v + 1]; ++e) {
        float L = ctx->adj_len[e];
        if (f->local[ctx->adj[e]] < 0 || !(L > 1e-6f * ctx->H)) continue;
        const float* om = edge_omega(f, i, e);
        for (uint32_t t = 0; t < P; ++t) /* a zero weight adds +0: skipped, the same bits */
            if (om[t] > 0) wt[t] += om[t] / ((double)P * L * L);
    }
    for (uint32_t t = 0; t < P; ++t) {
        if (!(wt[t] > 0)) continue;
        for (uint32_t a = 0; a < ni; ++a)
            for (uint32_t b = a; b < ni; ++b) {
                double x = wt[t] * dot3(cand_position(f, i, a, t), cand_position(f, i, b, t));
                B[a][b] += x;
                if (b != a) B[b][a] += x;
            }
    }
}

/* The unit-weight part of free vertex i's Hessian block with its free neighbour j along an
 * edge of length L (fixed over the passes, as diagonal_base). */
static void neighbour_base(const fit* f, uint32_t i, uint32_t j, float L, block B) {
    uint32_t P = f->P, C = FIT_CANDIDATES;
    double lambda = f->ctx->def->junction_smooth;
    const float* bi = f->bind + 3 * (size_t)i;
    const float* bj = f->bind + 3 * (size_t)j;
    for (uint32_t a = 0; a < f->ncand[i]; ++a)
        for (uint32_t b = 0; b < f->ncand[j]; ++b)
            B[a][b] =
                -quad(f, f->cand[i * C + a], f->cand[j * C + b], bi, bj) / ((double)P * L * L) -
                (f->cand[i * C + a] == f->cand[j * C + b] ? lambda : 0);
}

/* The Hessian block of free vertex i with its free neighbour j along the edge at adjacency
 * slot k, of length L: its base plus the reweighted samples. */
static void neighbour_block(const fit* f, const block base, uint32_t i, uint32_t j, uint32_t k,
                            float L, block B) {
    uint32_t P = f->P;
    memcpy(B, base, sizeof(block));
    const float* om = edge_omega(f, i, k);
    for (uint32_t t = 0; t < P; ++t) {
        if (!(om[t] > 0)) continue;
        double s = om[t] / ((double)P * L * L);
        for (uint32_t a = 0; a < f->ncand[i]; ++a)
            for (uint32_t b = 0; b < f->ncand[j]; ++b)
                B[a][b] -= s * dot3(cand_position(f, i, a, t), cand_position(f, j, b, t));
    }
}

/* Block (i, j) reduced to the unknowns, into T's upper triangle: entry (k,l) of T_i^T B T_j
 * is B[k][l] - B[k][r_j] - B[r_i][l] + B[r_i][r_j]; the reference's constant part moves the
 * linear term by -T_i^T B e_rj. */
static void add_block(const fit* f, step* s, uint32_t i, uint32_t j, block B, cholmod_triplet* T) {
    uint32_t C = FIT_CANDIDATES, ni = f->ncand[i], nj = f->ncand[j];
    uint32_t ri = s->ref[i], rj = s->ref[j];
    for (uint32_t a = 0; a < ni; ++a)
        s->red[i * C + a] -= B[a][rj];
    for (uint32_t a = 0; a < ni; ++a) {
        int32_t ra = s->var[i * C + a];
        if (ra < 0) continue;
        for (uint32_t b = 0; b < nj; ++b) {
            int32_t cb = s->var[j * C + b];
            if (cb < 0 || ra > cb) continue; /* upper triangle */
            size_t at = T->nnz++;
            ((int*)T->i)[at] = ra;
            ((int*)T->j)[at] = cb;
            ((double*)T->x)[at] = B[a][b] - B[a][rj] - B[ri][b] + B[ri][rj];
        }
    }
}

/* The blocks' unit-weight parts, once for all passes: free vertex i's own at i, its block
 * with the free neighbour at adjacency slot k at nf + eoff[i] + (k - adj_off[v]). */
static double* block_bases(const fit* f) {
    const rig_ctx* ctx = f->ctx;
    block* bases = malloc(((size_t)f->nf + f->eoff[f->nf] + 1) * sizeof *bases);
    if (!bases) return NULL;
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t v = f->verts[i];
        diagonal_base(f, i, bases[i]);
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t lj = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (lj < 0 || (uint32_t)lj >= f->nf || !(L > 1e-6f * ctx->H)) continue;
            neighbour_base(f, i, (uint32_t)lj, L,
                           bases[f->nf + f->eoff[i] + (k - ctx->adj_off[v])]);
        }
    }
    return (double*)bases;
}

/* The reduced system: T (each free vertex's block with itself, then with its free
 * neighbours) and its right-hand side, T_i^T x = x[k] - x[r] of the reduced linear term. */
static void assemble(const fit* f, step* s, const double* base_data, cholmod_triplet* T,
                     cholmod_dense* rhs) {
    const rig_ctx* ctx = f->ctx;
    const block* bases = (const block*)base_data;
    uint32_t C = FIT_CANDIDATES;
    block B;
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t v = f->verts[i];
        for (uint32_t c = 0; c < f->ncand[i]; ++c)
            s->red[i * C + c] += s->fvec[i * C + c];
        diagonal_block(f, bases[i], i, s->q, B);
        add_block(f, s, i, i, B, T);
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t lj = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (lj < 0 || (uint32_t)lj >= f->nf || !(L > 1e-6f * ctx->H)) continue;
            neighbour_block(f, bases[f->nf + f->eoff[i] + (k - ctx->adj_off[v])], i, (uint32_t)lj,
                            k, L, B);
            add_block(f, s, i, (uint32_t)lj, B, T);
        }
    }
    for (uint32_t i = 0; i < f->nf; ++i)
        for (uint32_t c = 0; c < f->ncand[i]; ++c)
            if (s->var[i * C + c] >= 0)
                ((double*)rhs->x)[s->var[i * C + c]] =
                    s->red[i * C + c] - s->red[i * C + s->ref[i]];
}

/* CHOLMOD's state across the passes: the factor of the last system and that system's
 * pattern. The pattern only changes when a vertex's count of unknowns does (the projection
 * dropped an influence), so most passes refactorise on the same symbolic analysis. */
typedef struct solver {
    cholmod_common cm;
    cholmod_factor* L;
    cholmod_sparse* A; /* the last system (its pattern is compared) */
    double* bases;     /* block_bases */
} solver;

static bool same_pattern(const cholmod_sparse* a, const cholmod_sparse* b) {
    if (!a || !b || a->ncol != b->ncol || a->nrow != b->nrow) return false;
    const int *ap = a->p, *bp = b->p;
    if (memcmp(ap, bp, (a->ncol + 1) * sizeof *ap)) return false;
    return !memcmp(a->i, b->i, (size_t)ap[a->ncol] * sizeof(int));
}

/* The solution of the reduced system, NULL when CHOLMOD fails (or there is no unknown). The
 * analysis (the fill-reducing ordering, from the pattern alone) is redone only when the
 * pattern changed; the numeric factorisation is computed afresh either way. */
static cholmod_dense* solve_system(solver* sv, cholmod_triplet* T, cholmod_dense* rhs) {
    cholmod_common* cm = &sv->cm;
    cholmod_sparse* A = cholmod_triplet_to_sparse(T, T->nnz, cm);
    if (!A) return NULL;
    if (!sv->L || !same_pattern(A, sv->A)) {
        cholmod_free_factor(&sv->L, cm);
        sv->L = cholmod_analyze(A, cm);
    }
    cholmod_free_sparse(&sv->A, cm);
    sv->A = A;
    cholmod_dense* x = NULL;
    if (sv->L && cholmod_factorize(A, sv->L, cm) && cm->status == CHOLMOD_OK)
        x = cholmod_solve(CHOLMOD_A, sv->L, rhs, cm);
    if (!x) cholmod_free_factor(&sv->L, cm); /* analyse afresh should it be asked again */
    return x;
}

/* One global step: with every edge's deformed direction fixed (from f->pos), the weights
 * minimising the quadratic energy, on each vertex's active candidates, summing to one. */
static bool global_step(fit* f, solver* sv) {
    cholmod_common* cm = &sv->cm;
    const rig_ctx* ctx = f->ctx;
    uint32_t nf = f->nf, C = FIT_CANDIDATES;
    step s = {0};
    s.ref = malloc((nf + 1) * sizeof *s.ref);
    s.var = malloc(((size_t)nf * C + 1) * sizeof *s.var);
    s.fvec = calloc((size_t)nf * C + 1, sizeof *s.fvec);
    s.red = calloc((size_t)nf * C + 1, sizeof *s.red);
    s.q = malloc(((size_t)f->P * 4 + 1) * sizeof *s.q);
    size_t cap = 0; /* triplets: a block per vertex and per edge */
    for (uint32_t i = 0; i < nf; ++i) {
        uint32_t v = f->verts[i];
        cap += (size_t)C * C * (1 + ctx->adj_off[v + 1] - ctx->adj_off[v]);
    }
    bool ok = s.ref && s.var && s.fvec && s.red && s.q;
    if (ok) number_unknowns(f, &s);
    uint32_t n = s.n ? s.n : 1;
    cholmod_triplet* T = ok ? cholmod_allocate_triplet(n, n, cap + 1, 1, CHOLMOD_REAL, cm) : NULL;
    cholmod_dense* rhs = ok ? cholmod_zeros(n, 1, CHOLMOD_REAL, cm) : NULL;
    ok = ok && T && rhs;
    for (uint32_t i = 0; ok && i < nf; ++i)
        linear_term(f, i, s.q, s.fvec + (size_t)i * C);
    if (ok) assemble(f, &s, sv->bases, T, rhs);
    cholmod_dense* x = ok && s.n ? solve_system(sv, T, rhs) : NULL;
    ok = ok && (s.n == 0 || x);
    for (uint32_t i = 0; ok && i < nf; ++i) {
        double sum = 0;
        for (uint32_t c = 0; c < f->ncand[i]; ++c) {
            double wv = s.var[i * C + c] >= 0 ? ((double*)x->x)[s.var[i * C + c]] : 0;
            f->w[i * C + c] = wv;
            sum += wv;
        }
        f->w[i * C + s.ref[i]] = 1 - sum;
    }
    cholmod_free_dense(&x, cm);
    cholmod_free_dense(&rhs, cm);
    cholmod_free_triplet(&T, cm);
    free(s.ref), free(s.var), free(s.fvec), free(s.red), free(s.q);
    return ok;
}

/* Non-negative, at most four influences, summing to one; projected-away influences leave
 * the active set. */
static void project(fit* f) {
    uint32_t C = FIT_CANDIDATES;
    for (uint32_t i = 0; i < f->nf; ++i) {
        double* w = f->w + (size_t)i * C;
        uint8_t* act = f->active + (size_t)i * C;
        uint32_t n = f->ncand[i];
        for (uint32_t c = 0; c < n; ++c) {
            if (!(w[c] > FIT_DROP) || !act[c]) w[c] = 0, act[c] = 0;
        }
        for (;;) { /* at most four */
            uint32_t count = 0, low = 0;
            for (uint32_t c = 0; c < n; ++c)
                if (act[c]) {
                    if (count == 0 || w[c] < w[low]) low = c;
                    ++count;
                }
            if (count <= FIT_MAX_INFLUENCES) break;
            w[low] = 0, act[low] = 0;
        }
        double s = 0;
        for (uint32_t c = 0; c < n; ++c)
            s += w[c];
        if (s > 0) {
            for (uint32_t c = 0; c < n; ++c)
                w[c] /= s;
        } else { /* cannot happen after a solve that sums to one; keep the rig's */
            for (uint32_t c = 0; c < n; ++c)
                w[c] = f->wrig[i * C + c], act[c] = w[c] > 0;
        }
    }
}

/* Iterative reweighting: every edge sample that is near tearing after a pass (stretch beyond
 * FIT_NEAR, short of the measure's torn bound so unseen poses in between keep clear of it)
 * weighs FIT_REWEIGHT more in the next passes. The stretches are bad_samples' (`ratio`, of the
 * same positions): an edge to a free neighbour listed before this vertex reads its twin slot
 * (the stretch is the same to the bit either way round), where there is one. */
static void reweight(fit* f, const float* ratio, const uint32_t* twin) {
    const rig_ctx* ctx = f->ctx;
    uint32_t P = f->P;
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t v = f->verts[i];
        const float* pi = f->pos + (size_t)i * P * 3;
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (j < 0 || !(L > 1e-6f * ctx->H)) continue;
            const float* pj = f->pos + (size_t)j * P * 3;
            size_t slot = (size_t)f->eoff[i] + (k - ctx->adj_off[v]);
            float* om = f->omega + slot * P;
            const float* known = NULL;
            if ((uint32_t)j >= f->nf || (uint32_t)j >= i)
                known = ratio + slot * P;
            else if (twin[slot] != UINT32_MAX)
                known = ratio + (size_t)twin[slot] * P;
            for (uint32_t t0 = 0; t0 < P; t0 += RATIO_CHUNK) {
                uint32_t n = P - t0 < RATIO_CHUNK ? P - t0 : RATIO_CHUNK;
                float r[RATIO_CHUNK];
                if (known)
                    memcpy(r, known + t0, n * sizeof *r);
                else
                    pose_ratios(pi, pj, t0, n, L, r);
                for (uint32_t u = 0; u < n; ++u) {
                    bool near = r[u] > FIT_NEAR || r[u] * FIT_NEAR < 1;
                    if (near && om[t0 + u] < FIT_REWEIGHT_MAX) om[t0 + u] += FIT_REWEIGHT;
                }
            }
        }
    }
}

/* Per adjacency slot of free vertex i whose neighbour j is free and listed before it, the slot
 * of the same edge at j (UINT32_MAX where there is none, or where its length differs). */
static uint32_t* twin_slots(const fit* f) {
    const rig_ctx* ctx = f->ctx;
    uint32_t* twin = malloc(((size_t)f->eoff[f->nf] + 1) * sizeof *twin);
    if (!twin) return NULL;
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t v = f->verts[i];
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            uint32_t slot = f->eoff[i] + (k - ctx->adj_off[v]);
            twin[slot] = UINT32_MAX;
            if (j < 0 || (uint32_t)j >= f->nf || (uint32_t)j >= i) continue;
            uint32_t u = f->verts[j];
            for (uint32_t m = ctx->adj_off[u]; m < ctx->adj_off[u + 1]; ++m)
                if (ctx->adj[m] == v && ctx->adj_len[m] == ctx->adj_len[k]) {
                    twin[slot] = f->eoff[j] + (m - ctx->adj_off[u]);
                    break;
                }
        }
    }
    return twin;
}

/* The edge samples the measure would hold against the fit, over the poses: torn where the
 * file's weights were not, or torn within the part (the tail must not tear). Each edge's
 * stretches go to `ratio` at its slot (for reweight). */
static uint64_t bad_samples(const fit* f, float* ratio) {
    const rig_ctx* ctx = f->ctx;
    uint32_t P = f->P;
    uint64_t bad = 0;
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t v = f->verts[i];
        const float* pi = f->pos + (size_t)i * P * 3;
        const float* qi = f->pos_in + (size_t)i * P * 3;
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (j < 0 || ((uint32_t)j < f->nf && (uint32_t)j < i) || !(L > 1e-6f * ctx->H))
                continue;
            const float* pj = f->pos + (size_t)j * P * 3;
            const float* qj = f->pos_in + (size_t)j * P * 3;
            bool part = f->in_part[i] && f->in_part[j];
            bool reached = f->reached[i] || f->reached[j];
            for (uint32_t t0 = 0; t0 < P; t0 += RATIO_CHUNK) {
                uint32_t n = P - t0 < RATIO_CHUNK ? P - t0 : RATIO_CHUNK;
                float* r = ratio + ((size_t)f->eoff[i] + (k - ctx->adj_off[v])) * P + t0;
                pose_ratios(pi, pj, t0, n, L, r);
                for (uint32_t u = 0; u < n; ++u) {
                    if (part)
                        bad += r[u] > FIT_NEAR || r[u] * FIT_NEAR < 1;
                    else if (reached)
                        bad += is_torn(r[u]);
                    else
                        bad += is_torn(r[u]) && !is_torn(pose_ratio(qi, qj, t0 + u, L));
                }
            }
        }
    }
    return bad;
}

bool rig_fit_solve(fit* f, uint32_t* iterations) {
    const rig_ctx* ctx = f->ctx;
    f->eoff = malloc(((size_t)f->nf + 1) * sizeof *f->eoff);
    if (!f->eoff) return false;
    f->eoff[0] = 0;
    for (uint32_t i = 0; i < f->nf; ++i)
        f->eoff[i + 1] = f->eoff[i] + ctx->adj_off[f->verts[i] + 1] - ctx->adj_off[f->verts[i]];
    f->omega = calloc((size_t)f->eoff[f->nf] * f->P + 1, sizeof *f->omega);
    f->cpos = malloc(((size_t)f->nf * FIT_CANDIDATES * f->P + 1) * 3 * sizeof *f->cpos);
    if (!f->omega || !f->cpos) return false;
    for (uint32_t i = 0; i < f->nf; ++i)
        for (uint32_t c = 0; c < f->ncand[i]; ++c)
            for (uint32_t t = 0; t < f->P; ++t)
                group_position(f, f->cand[i * FIT_CANDIDATES + c], t, f->bind + 3 * (size_t)i,
                               f->cpos + (((size_t)i * FIT_CANDIDATES + c) * f->P + t) * 3);
    solver sv = {0};
    sv.bases = block_bases(f);
    bool started = sv.bases && cholmod_start(&sv.cm), ok = started;
    if (started) sv.cm.print = 0;
    f->part->fit.energy_before = ok ? (float)rig_fit_energy(f) : 0;
    uint32_t it = 0;
    /* the pass with the fewest bad samples is kept (the rig's weights count as pass 0) */
    size_t wn = (size_t)f->nf * FIT_CANDIDATES;
    double* best_w = malloc((wn + 1) * sizeof *best_w);
    uint8_t* best_act = malloc(wn + 1);
    float* ratio = malloc(((size_t)f->eoff[f->nf] * f->P + 1) * sizeof *ratio);
    uint32_t* twin = twin_slots(f);
    ok = ok && best_w && best_act && ratio && twin;
    uint64_t best = ok ? bad_samples(f, ratio) : 0;
    uint32_t gained = 0; /* the last pass (1-based; 0: the rig's weights) with fewer */
    if (ok) memcpy(best_w, f->w, wn * sizeof *best_w), memcpy(best_act, f->active, wn);
    for (; ok && it < ctx->def->junction_iterations; ++it) {
        ok = global_step(f, &sv);
        if (!ok) break;
        project(f);
        for (uint32_t i = 0; i < f->nf; ++i)
            rig_fit_free_positions(f, i);
        uint64_t bad = bad_samples(f, ratio);
        if (bad < best) gained = it + 1;
        if (bad <= best)
            best = bad, memcpy(best_w, f->w, wn * sizeof *best_w), memcpy(best_act, f->active, wn);
        if (it + 1 >= gained + FIT_STALL) { /* no fewer bad samples in FIT_STALL passes */
            ++it;
            break;
        }
        reweight(f, ratio, twin);
    }
    if (ok) {
        memcpy(f->w, best_w, wn * sizeof *best_w), memcpy(f->active, best_act, wn);
        for (uint32_t i = 0; i < f->nf; ++i)
            rig_fit_free_positions(f, i);
    }
    free(best_w), free(best_act), free(ratio), free(twin);
    if (started) {
        cholmod_free_factor(&sv.L, &sv.cm);
        cholmod_free_sparse(&sv.A, &sv.cm);
        cholmod_finish(&sv.cm);
    }
    free(sv.bases);
    f->part->fit.energy_after = ok ? (float)rig_fit_energy(f) : 0;
    *iterations = it;
    return ok;
}
