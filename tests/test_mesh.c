/* Mesh algorithms: tiny hand-built meshes whose answers are worked out by hand in the
 * comments, randomized properties checked against independent brute force, and every
 * function on a real file (the knight with its two unwelded tail shells). */
#include "test.h"

#include "base/mat4.h"
#include "mesh/internal.h"

#include <tailor/tailor.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint32_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Du) >> 32);
}
static float rng_float(float lo, float hi) {
    return lo + (hi - lo) * (float)(rng_next() >> 8) / (float)(1u << 24);
}

/* ---- Welding ------------------------------------------------------------------------- */

/* tl_mesh_weld's cells sorted by packed keys (its radix sort) against its merge sort alone: the
 * same labels and count, to the bit. Sets of 1..20000 points: clusters of near and equal
 * points (the cells' ties), negative and positive coordinates, tolerances from a thousandth of
 * the spread to above it, and spreads so wide (1e18 cells) that the packed keys do not fit
 * (the merge sort then, both ways). */
static void weld_packed_matches_merge(void) {
    uint32_t sets = 0, vertices = 0, joined = 0, differ = 0;
    for (int set = 0; set < 60; ++set) {
        uint32_t n = set < 4 ? (uint32_t)set + 1 : 1 + rng_next() % (set % 6 == 0 ? 20000 : 3000);
        float* p = malloc(sizeof(float) * 3 * n);
        uint32_t* a = malloc(sizeof(uint32_t) * n);
        uint32_t* b = malloc(sizeof(uint32_t) * n);
        ENSURE(p && a && b);
        float spread = set % 10 == 9 ? 1e18f : rng_float(0.01f, 100.0f);
        float tolerance = spread * (set % 5 == 4 ? 2.0f : rng_float(1e-3f, 0.05f));
        if (set % 10 == 9) tolerance = 1.0f; /* 1e18 cells along each axis */
        for (uint32_t i = 0; i < n; ++i) {
            float* q = p + 3 * (size_t)i;
            if (i > 0 && rng_next() % 3 == 0) { /* near or on an earlier point */
                const float* o = p + 3 * (size_t)(rng_next() % i);
                for (int k = 0; k < 3; ++k)
                    q[k] = o[k] + (rng_next() % 2 ? 0 : rng_float(-1, 1) * tolerance);
            } else
                for (int k = 0; k < 3; ++k)
                    q[k] = rng_float(-spread, spread) * (k == 1 ? 0.5f : 1.0f);
        }
        size_t x = tl__mesh_weld(a, p, n, 12, tolerance, true);
        size_t y = tl__mesh_weld(b, p, n, 12, tolerance, false);
        differ += x != y || memcmp(a, b, sizeof(uint32_t) * n) != 0;
        sets++, vertices += n, joined += (uint32_t)(n - y);
        free(p), free(a), free(b);
    }
    printf("  %u sets, %u points, %u joined to another, %u sets differ\n", sets, vertices, joined,
           differ);
    ENSURE(joined > 10000 && differ == 0);
}

/* A unit quad split by a UV seam along its diagonal, so A and C come twice:
 *
 *   D(5) ------ C(2) C'(4)
 *    |        /  |
 *    |  t1  /    |        t0 = 0 1 2 (A B C), t1 = 3 4 5 (A' C' D)
 *    |    /  t0  |
 *   A(0) A'(3) - B(1)
 *
 * Welding gives 4 vertices A B C D with remap 0 1 2 0 2 3, and 5 edges instead of 6:
 * AB AC AD BC CD = (0,1) (0,2) (0,3) (1,2) (2,3). */
static void weld_quad_with_seam(void) {
    const float positions[6][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0},
                                   {0, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    const uint32_t indices[6] = {0, 1, 2, 3, 4, 5};
    uint32_t remap[6];
    ENSURE(tl_mesh_weld(remap, &positions[0][0], 6, sizeof positions[0], 1e-5f) == 4);
    const uint32_t expected_remap[6] = {0, 1, 2, 0, 2, 3};
    ENSURE(!memcmp(remap, expected_remap, sizeof remap));

    float welded[4][3];
    tl_mesh_weld_positions(&welded[0][0], remap, &positions[0][0], 6, sizeof positions[0]);
    ENSURE(welded[2][0] == 1 && welded[2][1] == 1 && welded[3][0] == 0 && welded[3][1] == 1);

    ENSURE(tl_mesh_edges_bound(6) == 6);
    uint32_t edges[2 * 6];
    ENSURE(tl_mesh_edges(edges, indices, 6, NULL) == 6); /* unwelded: two separate triangles */
    const uint32_t raw[12] = {0, 1, 0, 2, 1, 2, 3, 4, 3, 5, 4, 5};
    ENSURE(!memcmp(edges, raw, sizeof raw));
    ENSURE(tl_mesh_edges(edges, indices, 6, remap) == 5);
    const uint32_t expected_edges[10] = {0, 1, 0, 2, 0, 3, 1, 2, 2, 3};
    ENSURE(!memcmp(edges, expected_edges, sizeof expected_edges));

    uint32_t component[6];
    ENSURE(tl_mesh_components(component, raw, 6, NULL, 6) == 2);
    ENSURE(tl_mesh_components(component, edges, 5, NULL, 4) == 1);
}

/* Tolerance is strict, and clusters are single-linkage. On a line, tolerance 0.25 (all
 * values exact in binary):
 *
 *   x:  0    0.125  0.25   |   10   10.25   |   20   20.2   20.4
 *       a     b      c     |   d     e      |   f     g      h
 *
 * a–b 0.125 < 0.25 weld, b–c 0.125 weld (a–c is 0.25, not < 0.25, but joins through b);
 * d–e exactly 0.25 does not weld; f–g and g–h 0.2 weld, so f and h (0.4 apart) are one.
 * Ids: a b c → 0, d → 1, e → 2, f g h → 3: four vertices. Reversed input gives the same
 * clusters with ids in the new order of first appearance. */
static void weld_tolerance_and_chains(void) {
    const float x[8] = {0, 0.125f, 0.25f, 10, 10.25f, 20, 20.2f, 20.4f};
    float positions[8][3] = {{0}}, reversed[8][3] = {{0}};
    for (int i = 0; i < 8; ++i)
        positions[i][0] = reversed[7 - i][0] = x[i];
    uint32_t remap[8];
    ENSURE(tl_mesh_weld(remap, &positions[0][0], 8, sizeof positions[0], 0.25f) == 4);
    const uint32_t expected[8] = {0, 0, 0, 1, 2, 3, 3, 3};
    ENSURE(!memcmp(remap, expected, sizeof remap));
    ENSURE(tl_mesh_weld(remap, &reversed[0][0], 8, sizeof reversed[0], 0.25f) == 4);
    const uint32_t expected_reversed[8] = {0, 0, 0, 1, 2, 3, 3, 3}; /* h g f, e, d, c b a */
    ENSURE(!memcmp(remap, expected_reversed, sizeof remap));

    /* Along a diagonal the distance is what counts, not the per-axis gap: (0.2, 0.2, 0) is
     * 0.283 away from the origin, beyond 0.25, though each axis differs by less. */
    const float diagonal[2][3] = {{0, 0, 0}, {0.2f, 0.2f, 0}};
    ENSURE(tl_mesh_weld(remap, &diagonal[0][0], 2, sizeof diagonal[0], 0.25f) == 2);
    ENSURE(tl_mesh_weld(remap, &diagonal[0][0], 2, sizeof diagonal[0], 0.3f) == 1);
    ENSURE(tl_mesh_weld(remap, NULL, 0, 12, 0.25f) == 0);
}

/* Random property: N well-separated points (a jittered grid, spacing 1, jitter ±0.2), each
 * copied 1–4 times with a jitter of length < tolerance/2 so that copies are closer than the
 * tolerance to each other, shuffled. Welding must give back exactly N vertices, copies of one
 * point must share an id, and ids must come in order of first appearance. */
static void weld_random_jittered_copies(void) {
    enum { side = 30, points = side * side * side / 3 };
    const float tolerance = 1e-3f;
    size_t capacity = points * 4;
    float* positions = malloc(capacity * 4 * sizeof(float)); /* stride 16: xyz + padding */
    uint32_t* origin = malloc(capacity * sizeof *origin);
    uint32_t* remap = malloc(capacity * sizeof *remap);
    uint32_t* first_id = malloc(points * sizeof *first_id);
    size_t n = 0;
    for (uint32_t p = 0; p < points; ++p) {
        float base[3] = {(float)(p % side) + rng_float(-0.2f, 0.2f),
                         (float)(p / side % side) + rng_float(-0.2f, 0.2f),
                         (float)(p / side / side) + rng_float(-0.2f, 0.2f)};
        uint32_t copies = 1 + rng_next() % 4;
        for (uint32_t c = 0; c < copies; ++c) {
            float d[3], length;
            do { /* a random direction, scaled to a length below tolerance / 2 */
                for (int k = 0; k < 3; ++k)
                    d[k] = rng_float(-1, 1);
                length = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            } while (length < 0.1f || length > 1.0f);
            float scale = rng_float(0, 0.49f * tolerance) / length;
            for (int k = 0; k < 3; ++k)
                positions[4 * n + k] = base[k] + d[k] * scale;
            positions[4 * n + 3] = NAN; /* padding the stride must skip */
            origin[n++] = p;
        }
    }
    for (size_t i = n; i-- > 1;) { /* Fisher–Yates, moving the origin along */
        size_t j = rng_next() % (i + 1);
        for (int k = 0; k < 4; ++k) {
            float t = positions[4 * i + k];
            positions[4 * i + k] = positions[4 * j + k], positions[4 * j + k] = t;
        }
        uint32_t t = origin[i];
        origin[i] = origin[j], origin[j] = t;
    }
    size_t welded = tl_mesh_weld(remap, positions, n, 4 * sizeof(float), tolerance);
    ENSURE_MSG(welded == points, "%zu copies of %d points welded to %zu", n, points, welded);
    for (uint32_t p = 0; p < points; ++p)
        first_id[p] = UINT32_MAX;
    uint32_t next_id = 0;
    for (size_t i = 0; i < n; ++i) {
        if (first_id[origin[i]] == UINT32_MAX) {
            ENSURE_MSG(remap[i] == next_id, "vertex %zu: id %u, expected first-seen %u", i,
                       remap[i], next_id);
            first_id[origin[i]] = next_id++;
        }
        ENSURE_MSG(remap[i] == first_id[origin[i]], "vertex %zu: copies of one point split", i);
    }
    free(positions), free(origin), free(remap), free(first_id);
}

/* Random property against brute force: 3000 points around the origin (negative cells too),
 * coordinates on a grid of 1/64 so that many pairs sit exactly at the tolerance, at densities
 * where chains form. The weld must equal an all-pairs union-find with the same strict test,
 * labelled in order of first appearance. */
static void weld_matches_brute_force(void) {
    enum { n = 3000 };
    float* positions = malloc(n * 3 * sizeof(float));
    uint32_t* remap = malloc(n * sizeof(uint32_t));
    uint32_t* parent = malloc(n * sizeof(uint32_t));
    uint32_t* label = malloc(n * sizeof(uint32_t));
    const float tolerances[3] = {0.03125f, 0.0625f, 0.05f};
    for (int run = 0; run < 3; ++run) {
        for (int i = 0; i < 3 * n; ++i)
            positions[i] = (float)((int)(rng_next() % 65) - 32) / 64;
        float tolerance = tolerances[run];
        size_t welded = tl_mesh_weld(remap, positions, n, 12, tolerance);

        for (uint32_t i = 0; i < n; ++i)
            parent[i] = i;
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = i + 1; j < n; ++j) {
                const float *p = positions + 3 * i, *q = positions + 3 * j;
                float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
                if (!(dx * dx + dy * dy + dz * dz < tolerance * tolerance)) continue;
                uint32_t a = i, b = j;
                while (parent[a] != a)
                    a = parent[a];
                while (parent[b] != b)
                    b = parent[b];
                if (a != b) parent[a > b ? a : b] = a < b ? a : b;
            }
        uint32_t count = 0;
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t root = i;
            while (parent[root] != root)
                root = parent[root];
            label[i] = root == i ? count++ : label[root];
        }
        ENSURE_MSG(welded == count, "tolerance %g: %zu welded, brute force %u", (double)tolerance,
                   welded, count);
        ENSURE(!memcmp(remap, label, n * sizeof(uint32_t)));
        fprintf(stderr, "  tolerance %g: %u of %d\n", (double)tolerance, count, n);
        ENSURE(count > 100 && count < n - 100); /* the case welds some and keeps others */
    }
    free(positions), free(remap), free(parent), free(label);
}

/* ---- Graphs and components ----------------------------------------------------------- */

/* A cube as exporters write it with hard normals: 6 faces × 4 corners = 24 vertices, no
 * two faces sharing one. Corner c sits at (c&1, c>>1&1, c>>2&1); each face is a cycle of
 * corners split into two triangles. */
static const int cube_faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                                     {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};

static void cube_add(float (*positions)[3], uint32_t* indices, uint32_t base, float offset) {
    for (uint32_t f = 0; f < 6; ++f) {
        for (uint32_t k = 0; k < 4; ++k) {
            int c = cube_faces[f][k];
            float* p = positions[base + 4 * f + k];
            p[0] = (float)(c & 1) + offset, p[1] = (float)(c >> 1 & 1) + offset;
            p[2] = (float)(c >> 2 & 1) + offset;
        }
        const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; ++k)
            indices[(base / 4 + f) * 6 + k] = base + 4 * f + tri[k];
    }
}

/* Two such cubes, the second moved by (0.5, 0.5, 0.5): they overlap in space but share no
 * vertex. Unwelded, every face is an island: 12 components. Welded, each cube is one closed
 * surface of 8 vertices and 12 + 6 diagonal = 18 edges: 16 vertices, 36 edges, 2
 * components. Moved by 0 instead, the cubes coincide and weld into one: 8 vertices, 18
 * edges, 1 component. */
static void components_of_two_cubes(void) {
    float positions[48][3];
    uint32_t indices[72], remap[48], edges[2 * 72], component[48];
    const float offsets[2] = {0.5f, 0.0f};
    const size_t expected_welded[2] = {16, 8}, expected_edges[2] = {36, 18};
    const size_t expected_components[2] = {2, 1};
    for (int run = 0; run < 2; ++run) {
        cube_add(positions, indices, 0, 0.0f);
        cube_add(positions, indices, 24, offsets[run]);
        size_t raw_edges = tl_mesh_edges(edges, indices, 72, NULL);
        ENSURE(raw_edges == 12 * 5); /* per face: 4 sides + 1 diagonal */
        ENSURE(tl_mesh_components(component, edges, raw_edges, NULL, 48) == 12);

        size_t welded = tl_mesh_weld(remap, &positions[0][0], 48, sizeof positions[0], 1e-4f);
        ENSURE(welded == expected_welded[run]);
        size_t edge_count = tl_mesh_edges(edges, indices, 72, remap);
        ENSURE(edge_count == expected_edges[run]);
        ENSURE(tl_mesh_components(component, edges, edge_count, NULL, welded) ==
               expected_components[run]);
        if (run == 0) { /* the first cube's corners are ids 0..7, the second's 8..15 */
            for (uint32_t v = 0; v < 16; ++v)
                ENSURE(component[v] == (v < 8 ? 0u : 1u));
        }
    }
}

/* A 4×4 grid of unit squares' corners with the middle square missing; each square is split
 * along its diagonal from lower left to upper right:
 *
 *   12--13--14--15
 *    | / | / | / |
 *    8---9--10--11
 *    | / |   | / |      the square 5 6 10 9 is a hole: only its diagonal 5–10 is lost,
 *    4---5---6---7      its four sides belong to the neighbouring squares
 *    | / | / | / |
 *    0---1---2---3
 *
 * Edges: 12 horizontal + 12 vertical + 8 diagonals = 32. */
static void grid_with_hole(float positions[16][3], uint32_t indices[48]) {
    for (int v = 0; v < 16; ++v)
        positions[v][0] = (float)(v % 4), positions[v][1] = (float)(v / 4), positions[v][2] = 0;
    int n = 0;
    for (uint32_t y = 0; y < 3; ++y) {
        for (uint32_t x = 0; x < 3; ++x) {
            if (x == 1 && y == 1) continue;
            uint32_t a = 4 * y + x;
            const uint32_t tri[6] = {a, a + 1, a + 5, a, a + 5, a + 4};
            for (int k = 0; k < 6; ++k)
                indices[n++] = tri[k];
        }
    }
}

static void grid_components_and_masks(void) {
    float positions[16][3];
    uint32_t indices[48], edges[2 * 48], component[16];
    grid_with_hole(positions, indices);
    size_t edge_count = tl_mesh_edges(edges, indices, 48, NULL);
    ENSURE(edge_count == 32);
    for (size_t e = 0; e < edge_count; ++e) {
        ENSURE(edges[2 * e] < edges[2 * e + 1]);
        ENSURE(!(edges[2 * e] == 5 && edges[2 * e + 1] == 10)); /* the hole's diagonal */
        if (e > 0)                                              /* sorted by (a, b), hence unique */
            ENSURE(edges[2 * e - 2] < edges[2 * e] ||
                   (edges[2 * e - 2] == edges[2 * e] && edges[2 * e - 1] < edges[2 * e + 1]));
    }
    ENSURE(tl_mesh_components(component, edges, edge_count, NULL, 16) == 1);

    /* Without row y = 1 (4 5 6 7) the bottom row and the top two rows fall apart. */
    uint8_t mask[16];
    for (int v = 0; v < 16; ++v)
        mask[v] = v / 4 != 1;
    ENSURE(tl_mesh_components(component, edges, edge_count, mask, 16) == 2);
    for (int v = 0; v < 16; ++v)
        ENSURE(component[v] == (v < 4 ? 0u : v < 8 ? UINT32_MAX : 1u));

    /* Only the two outer columns: left 0 4 8 12 and right 3 7 11 15, ids by lowest vertex. */
    for (int v = 0; v < 16; ++v)
        mask[v] = v % 4 == 0 || v % 4 == 3;
    ENSURE(tl_mesh_components(component, edges, edge_count, mask, 16) == 2);
    for (int v = 0; v < 16; ++v)
        ENSURE(component[v] == (v % 4 == 0 ? 0u : v % 4 == 3 ? 1u : UINT32_MAX));

    /* Two lone vertices are two components of one vertex each. */
    memset(mask, 0, sizeof mask);
    mask[0] = mask[15] = 1;
    ENSURE(tl_mesh_components(component, edges, edge_count, mask, 16) == 2);
    ENSURE(component[0] == 0 && component[15] == 1 && component[5] == UINT32_MAX);

    /* Adjacency of the corner vertex 0: 1, 4 and the diagonal 5, ascending, with lengths. */
    uint32_t offsets[17], neighbors[64];
    float lengths[64];
    ENSURE(tl_mesh_adjacency(offsets, neighbors, lengths, edges, edge_count, 16, &positions[0][0],
                             sizeof positions[0]) == 64);
    ENSURE(offsets[0] == 0 && offsets[1] == 3 && offsets[16] == 64);
    ENSURE(neighbors[0] == 1 && neighbors[1] == 4 && neighbors[2] == 5);
    ENSURE(lengths[0] == 1 && lengths[1] == 1 && lengths[2] == sqrtf(2.0f));
    /* Vertex 5 lost its diagonal to 10: neighbours 0 1 4 6 9 (5 of them). */
    ENSURE(offsets[6] - offsets[5] == 5);
}

/* ---- Geodesics ----------------------------------------------------------------------- */

/* Shortest paths round the hole from vertex 0 (see grid_with_hole):
 *   to 10: the diagonal 5–10 is gone, so 0–5–6–10 = √2 + 1 + 1 = 2 + √2
 *          (not 2√2 as on the full grid);
 *   to 15: 0–5–6–10–15 = 2 + 2√2, or 0–1–6–11–15 = 1 + √2 + √2 + 1, the same;
 *   to 3:  along the bottom row, 3. */
static void geodesic_around_a_hole(void) {
    float positions[16][3];
    uint32_t indices[48], edges[2 * 48], offsets[17], neighbors[64];
    float lengths[64], distance[16];
    grid_with_hole(positions, indices);
    size_t edge_count = tl_mesh_edges(edges, indices, 48, NULL);
    tl_mesh_adjacency(offsets, neighbors, lengths, edges, edge_count, 16, &positions[0][0],
                      sizeof positions[0]);
    ENSURE(tl_mesh_geodesic_scratch_size(16) == 2 * 16 * sizeof(uint32_t));
    uint32_t scratch[32];
    const uint32_t source = 0;
    ENSURE(tl_mesh_geodesic(distance, offsets, neighbors, lengths, 16, NULL, &source, 1, scratch) ==
           16);
    const double r2 = sqrt(2.0);
    ENSURE_NEAR(distance[0], 0.0, 0.0);
    ENSURE_NEAR(distance[5], r2, 1e-6);
    ENSURE_NEAR(distance[10], 2 + r2, 1e-6);
    ENSURE_NEAR(distance[15], 2 + 2 * r2, 1e-6);
    ENSURE_NEAR(distance[3], 3.0, 1e-6);
    ENSURE_NEAR(distance[12], 3.0, 1e-6);
}

/* A strip with uneven spacing; the left end (0 and 1) is the source set:
 *
 *   1------3------------5--------------------7     y = 1
 *   | \    | \          | \                    |
 *   |    \ |      \    |          \          |   diagonals 1–2, 3–4, 5–6
 *   0------2------------4--------------------6     y = 0
 *   x=0    x=1          x=3                  x=6
 *
 * The straight runs are the shortest paths: distance = x, the sum of the horizontal edge
 * lengths 1, 2, 3 (every diagonal is longer than the side it replaces). With vertex 4 left
 * out of the mask, 6 is reached over the diagonal 5–6: 3 + √(3² + 1²) = 3 + √10, shorter
 * than 5–7–6 = 3 + 3 + 1. Sources 0 and 1 are outside that mask and still start the search:
 * 7 vertices reached, 4 at INFINITY. */
static void geodesic_along_a_strip(void) {
    const float x[4] = {0, 1, 3, 6};
    float positions[8][3];
    for (int i = 0; i < 8; ++i)
        positions[i][0] = x[i / 2], positions[i][1] = (float)(i % 2), positions[i][2] = 0;
    const uint32_t indices[18] = {0, 2, 1, 1, 2, 3, 2, 4, 3, 3, 4, 5, 4, 6, 5, 5, 6, 7};
    uint32_t edges[36], offsets[9], neighbors[36], scratch[16];
    float lengths[36], distance[8];
    size_t edge_count = tl_mesh_edges(edges, indices, 18, NULL);
    ENSURE(edge_count == 13); /* 3 + 3 horizontal, 4 vertical, 3 diagonal */
    tl_mesh_adjacency(offsets, neighbors, lengths, edges, edge_count, 8, &positions[0][0],
                      sizeof positions[0]);
    const uint32_t sources[3] = {0, 1, 0}; /* a duplicate is harmless */
    ENSURE(tl_mesh_geodesic(distance, offsets, neighbors, lengths, 8, NULL, sources, 3, scratch) ==
           8);
    for (int i = 0; i < 8; ++i)
        ENSURE_NEAR(distance[i], x[i / 2], 0.0);

    uint8_t mask[8] = {0, 0, 1, 1, 0, 1, 1, 1};
    ENSURE(tl_mesh_geodesic(distance, offsets, neighbors, lengths, 8, mask, sources, 2, scratch) ==
           7);
    ENSURE(distance[0] == 0 && distance[1] == 0 && distance[2] == 1 && distance[3] == 1);
    ENSURE(distance[4] == INFINITY);
    ENSURE(distance[5] == 3);
    ENSURE_NEAR(distance[6], 3 + sqrt(10.0), 1e-6);
    ENSURE(distance[7] == 6);
}

/* A side×side grid of vertices jittered by ±0.3 in x, y and ±0.5 in z, two triangles per cell,
 * one cell in `hole_one_in` (at random) left out; the index count. */
static size_t jittered_grid(uint32_t side, uint32_t hole_one_in, float* positions,
                            uint32_t* indices) {
    for (uint32_t v = 0; v < side * side; ++v) {
        positions[3 * v + 0] = (float)(v % side) + rng_float(-0.3f, 0.3f);
        positions[3 * v + 1] = (float)(v / side) + rng_float(-0.3f, 0.3f);
        positions[3 * v + 2] = rng_float(-0.5f, 0.5f);
    }
    size_t index_count = 0;
    for (uint32_t y = 0; y + 1 < side; ++y)
        for (uint32_t x = 0; x + 1 < side; ++x) {
            if (rng_next() % hole_one_in == 0) continue; /* a hole */
            uint32_t a = side * y + x;
            const uint32_t tri[6] = {a, a + 1, a + side + 1, a, a + side + 1, a + side};
            for (int k = 0; k < 6; ++k)
                indices[index_count++] = tri[k];
        }
    return index_count;
}

/* Random property on a jittered, triangulated 40×40 grid with random holes: Dijkstra's
 * distances (a) satisfy d[v] <= d[u] + |uv| exactly for every edge, (b) never exceed the
 * length of any random walk from the source, summed the same way, (c) are at least the
 * straight-line distance from the source, and (d) equal a Bellman–Ford run in double. */
static void geodesic_random_properties(void) {
    enum { side = 40, vertices = side * side };
    float* positions = malloc(vertices * 3 * sizeof(float));
    uint32_t* indices = malloc((side - 1) * (side - 1) * 6 * sizeof(uint32_t));
    size_t index_count = jittered_grid(side, 5, positions, indices);
    uint32_t* edges = malloc(2 * tl_mesh_edges_bound(index_count) * sizeof(uint32_t));
    size_t edge_count = tl_mesh_edges(edges, indices, index_count, NULL);
    uint32_t* offsets = malloc((vertices + 1) * sizeof(uint32_t));
    uint32_t* neighbors = malloc(2 * edge_count * sizeof(uint32_t));
    float* lengths = malloc(2 * edge_count * sizeof(float));
    float* distance = malloc(vertices * sizeof(float));
    double* reference = malloc(vertices * sizeof(double));
    void* scratch = malloc(tl_mesh_geodesic_scratch_size(vertices));
    tl_mesh_adjacency(offsets, neighbors, lengths, edges, edge_count, vertices, positions,
                      3 * sizeof(float));
    const uint32_t source = side * (side / 2) + side / 2;
    size_t reached = tl_mesh_geodesic(distance, offsets, neighbors, lengths, vertices, NULL,
                                      &source, 1, scratch);

    for (int v = 0; v < vertices; ++v)
        reference[v] = v == (int)source ? 0 : INFINITY;
    for (bool changed = true; changed;) { /* Bellman–Ford over the edge list, in double */
        changed = false;
        for (size_t e = 0; e < edge_count; ++e) {
            uint32_t a = edges[2 * e], b = edges[2 * e + 1];
            const float *p = positions + 3 * a, *q = positions + 3 * b;
            double l = sqrt(((double)p[0] - q[0]) * ((double)p[0] - q[0]) +
                            ((double)p[1] - q[1]) * ((double)p[1] - q[1]) +
                            ((double)p[2] - q[2]) * ((double)p[2] - q[2]));
            if (reference[a] + l < reference[b]) reference[b] = reference[a] + l, changed = true;
            if (reference[b] + l < reference[a]) reference[a] = reference[b] + l, changed = true;
        }
    }
    size_t expected_reached = 0;
    for (int v = 0; v < vertices; ++v) {
        expected_reached += reference[v] < INFINITY;
        if (reference[v] == INFINITY) {
            ENSURE(distance[v] == INFINITY);
            continue;
        }
        /* float sums of up to ~100 edges against double: relative rounding only */
        ENSURE_NEAR(distance[v], reference[v], 1e-5 * (1 + reference[v]));
        const float* p = positions + 3 * v;
        const float* s = positions + 3 * source;
        double straight = sqrt(((double)p[0] - s[0]) * ((double)p[0] - s[0]) +
                               ((double)p[1] - s[1]) * ((double)p[1] - s[1]) +
                               ((double)p[2] - s[2]) * ((double)p[2] - s[2]));
        ENSURE(reference[v] >= straight);
        for (uint32_t k = offsets[v]; k < offsets[v + 1]; ++k)
            ENSURE(distance[neighbors[k]] <= distance[v] + lengths[k]);
    }
    ENSURE(reached == expected_reached);
    for (int walk = 0; walk < 200; ++walk) {
        uint32_t v = source;
        float sum = 0;
        for (int step = 0; step < 60 && offsets[v + 1] > offsets[v]; ++step) {
            uint32_t k = offsets[v] + rng_next() % (offsets[v + 1] - offsets[v]);
            sum = sum + lengths[k];
            v = neighbors[k];
            ENSURE_MSG(distance[v] <= sum, "walk %d step %d: %g > %g", walk, step,
                       (double)distance[v], (double)sum);
        }
    }
    free(positions), free(indices), free(edges), free(offsets), free(neighbors);
    free(lengths), free(distance), free(reference), free(scratch);
}

/* Covering a mesh path after path (the hair trace): tl_mesh_geodesic_lower gives, bit for bit,
 * the minimum of the field so far and a whole tl_mesh_geodesic from each new path, on a
 * jittered 40×40 grid with holes (pieces the first source cannot reach start at INFINITY), and
 * counts exactly the vertices whose distance dropped. Paths are random walks. */
static void geodesic_lower_matches_whole_runs(void) {
    enum { side = 40, vertices = side * side };
    float* positions = malloc(vertices * 3 * sizeof(float));
    uint32_t* indices = malloc((side - 1) * (side - 1) * 6 * sizeof(uint32_t));
    size_t index_count = jittered_grid(side, 4, positions, indices);
    uint32_t* edges = malloc(2 * tl_mesh_edges_bound(index_count) * sizeof(uint32_t));
    size_t edge_count = tl_mesh_edges(edges, indices, index_count, NULL);
    uint32_t* offsets = malloc((vertices + 1) * sizeof(uint32_t));
    uint32_t* neighbors = malloc(2 * edge_count * sizeof(uint32_t));
    float* lengths = malloc(2 * edge_count * sizeof(float));
    float* cover = malloc(vertices * sizeof(float));
    float* whole = malloc(vertices * sizeof(float));
    float* expected = malloc(vertices * sizeof(float));
    uint32_t path[80];
    void* scratch = malloc(tl_mesh_geodesic_scratch_size(vertices));
    tl_mesh_adjacency(offsets, neighbors, lengths, edges, edge_count, vertices, positions,
                      3 * sizeof(float));
    const uint32_t source = side * (side / 2) + side / 2;
    tl_mesh_geodesic(cover, offsets, neighbors, lengths, vertices, NULL, &source, 1, scratch);
    size_t visited = 0;
    for (int round = 0; round < 60; ++round) {
        uint32_t v = rng_next() % vertices, count = 0;
        path[count++] = v;
        for (int step = 0; step < 40 && offsets[v + 1] > offsets[v]; ++step) {
            v = neighbors[offsets[v] + rng_next() % (offsets[v + 1] - offsets[v])];
            path[count++] = v; /* repeats included: duplicate sources are fine */
        }
        tl_mesh_geodesic(whole, offsets, neighbors, lengths, vertices, NULL, path, count, scratch);
        size_t dropped = 0;
        for (int i = 0; i < vertices; ++i) {
            expected[i] = whole[i] < cover[i] ? whole[i] : cover[i];
            dropped += expected[i] < cover[i];
        }
        size_t lowered = tl_mesh_geodesic_lower(cover, offsets, neighbors, lengths, vertices, path,
                                                count, scratch);
        ENSURE_MSG(memcmp(cover, expected, vertices * sizeof(float)) == 0, "round %d", round);
        ENSURE_MSG(lowered == dropped, "round %d: %zu lowered, %zu dropped", round, lowered,
                   dropped);
        visited += lowered;
    }
    /* the point of it: later paths claim little, so far fewer than 60 whole runs' visits */
    ENSURE_MSG(visited < 60 * (size_t)vertices / 4, "%zu visits", visited);
    free(positions), free(indices), free(edges), free(offsets), free(neighbors);
    free(lengths), free(cover), free(whole), free(expected), free(scratch);
}

/* ---- PCA ----------------------------------------------------------------------------- */

static void ensure_eigenpairs(const float m[9], const float values[3], const float vectors[9]) {
    for (int i = 0; i < 3; ++i) {
        const float* v = vectors + 3 * i;
        for (int r = 0; r < 3; ++r) { /* M v = λ v */
            double mv =
                (double)m[3 * r] * v[0] + (double)m[3 * r + 1] * v[1] + (double)m[3 * r + 2] * v[2];
            ENSURE_NEAR(mv, (double)values[i] * v[r], 1e-5);
        }
        for (int j = 0; j < 3; ++j) { /* orthonormal */
            const float* w = vectors + 3 * j;
            ENSURE_NEAR((double)v[0] * w[0] + (double)v[1] * w[1] + (double)v[2] * w[2],
                        i == j ? 1.0 : 0.0, 1e-6);
        }
    }
    ENSURE(values[0] >= values[1] && values[1] >= values[2]);
}

/* diag(3, 1, 2): values 3 2 1 with vectors x, z, y.
 * Rotating diag(5, 2, 1) by 30° about z (c = √3/2, s = 1/2) gives
 *   M = [[5c² + 2s², 3cs, 0], [3cs, 5s² + 2c², 0], [0, 0, 1]]
 *     = [[4.25, 1.2990381, 0], [1.2990381, 2.75, 0], [0, 0, 1]]
 * with values 5 2 1 and vectors ±(c, s, 0), ±(−s, c, 0), ±(0, 0, 1); signed so that the
 * largest component is positive: (c, s, 0), (−s, c, 0), (0, 0, 1). */
static void eigen_known_matrices(void) {
    float values[3], vectors[9];
    const float diagonal[9] = {3, 0, 0, 0, 1, 0, 0, 0, 2};
    tl_mesh_eigen_symmetric(values, vectors, diagonal);
    ENSURE(values[0] == 3 && values[1] == 2 && values[2] == 1);
    const float expected_diagonal[9] = {1, 0, 0, 0, 0, 1, 0, 1, 0};
    ENSURE(!memcmp(vectors, expected_diagonal, sizeof vectors));

    const float rotated[9] = {4.25f, 1.2990381f, 0, 1.2990381f, 2.75f, 0, 0, 0, 1};
    tl_mesh_eigen_symmetric(values, vectors, rotated);
    ENSURE_NEAR(values[0], 5, 1e-5);
    ENSURE_NEAR(values[1], 2, 1e-5);
    ENSURE_NEAR(values[2], 1, 1e-6);
    ENSURE_NEAR(vectors[0], sqrt(3.0) / 2, 1e-6);
    ENSURE_NEAR(vectors[1], 0.5, 1e-6);
    ENSURE_NEAR(vectors[3], -0.5, 1e-6);
    ENSURE_NEAR(vectors[4], sqrt(3.0) / 2, 1e-6);
    ENSURE_NEAR(vectors[8], 1, 1e-6);
    ensure_eigenpairs(rotated, values, vectors);

    /* Repeated eigenvalues: diag(2, 2, 1) rotated 30° about x, whose columns are (1, 0, 0),
     * (0, c, s) and (0, −s, c):
     *   M = [[2, 0, 0], [0, 2c² + s², (2 − 1)cs], [0, (2 − 1)cs, 2s² + c²]]
     *     = [[2, 0, 0], [0, 1.75, 0.4330127], [0, 0.4330127, 1.25]]
     * values 2 2 1; the vector of 1 is (0, −s, c) (largest component c positive); the two
     * of value 2 may be any orthonormal pair in the plane orthogonal to it. */
    const float repeated[9] = {2, 0, 0, 0, 1.75f, 0.4330127f, 0, 0.4330127f, 1.25f};
    tl_mesh_eigen_symmetric(values, vectors, repeated);
    ENSURE_NEAR(values[0], 2, 1e-6);
    ENSURE_NEAR(values[1], 2, 1e-6);
    ENSURE_NEAR(values[2], 1, 1e-6);
    ENSURE_NEAR(vectors[6], 0, 1e-6);
    ENSURE_NEAR(vectors[7], -0.5, 1e-6);
    ENSURE_NEAR(vectors[8], sqrt(3.0) / 2, 1e-6);
    ensure_eigenpairs(repeated, values, vectors);

    const float identity4[9] = {4, 0, 0, 0, 4, 0, 0, 0, 4}; /* all three equal */
    tl_mesh_eigen_symmetric(values, vectors, identity4);
    ENSURE(values[0] == 4 && values[1] == 4 && values[2] == 4);
    ensure_eigenpairs(identity4, values, vectors);

    const float zero[9] = {0};
    tl_mesh_eigen_symmetric(values, vectors, zero);
    ENSURE(values[0] == 0 && values[2] == 0);
    ensure_eigenpairs(zero, values, vectors);

    /* Tiny entries (bind space at 1/100 scale, squared) converge as well as unit ones. */
    float tiny[9];
    for (int k = 0; k < 9; ++k)
        tiny[k] = rotated[k] * 1e-10f;
    tl_mesh_eigen_symmetric(values, vectors, tiny);
    ENSURE_NEAR(values[0] / 1e-10, 5, 1e-4);
    ENSURE_NEAR(values[2] / 1e-10, 1, 1e-4);
    ENSURE_NEAR(vectors[0], sqrt(3.0) / 2, 1e-5);
}

/* Four points (±2, 0, 0) and (0, ±1, 0) around (1000, 1000, 1000): mean (1000, 1000, 1000),
 * variance x = (4 + 4) / 4 = 2, y = (1 + 1) / 4 = 0.5, everything else 0. Far from the
 * origin a one-pass sum in float would lose it. The subset {0, 1} alone: x variance 4. */
static void covariance_known_points(void) {
    const float points[4][3] = {
        {1002, 1000, 1000}, {998, 1000, 1000}, {1000, 1001, 1000}, {1000, 999, 1000}};
    float covariance[9], mean[3];
    tl_mesh_covariance(covariance, mean, &points[0][0], 4, sizeof points[0], NULL, 0);
    ENSURE(mean[0] == 1000 && mean[1] == 1000 && mean[2] == 1000);
    const float expected[9] = {2, 0, 0, 0, 0.5f, 0, 0, 0, 0};
    ENSURE(!memcmp(covariance, expected, sizeof expected));
    const uint32_t subset[2] = {0, 1};
    tl_mesh_covariance(covariance, mean, &points[0][0], 4, sizeof points[0], subset, 2);
    ENSURE(covariance[0] == 4 && covariance[4] == 0 && mean[0] == 1000);
    tl_mesh_covariance(covariance, mean, &points[0][0], 4, sizeof points[0], subset, 0);
    ENSURE(covariance[0] == 0 && mean[0] == 0);
}

/* ---- Segments, boxes, percentiles ---------------------------------------------------- */

/* Segment a = (0,0,0), b = (2,0,0):
 *   p = (1, 1, 0): foot at t = 0.5, distance 1;
 *   p = (−1, 0, 0): before a, t = 0, distance 1;
 *   p = (3, 4, 0): past b, t = 1, distance |(1, 4)| = √17;
 * a zero-length segment at (1,1,1) is its point: p = (1,1,3) is 2 away with t = 0. */
static void segment_distances(void) {
    const float a[3] = {0, 0, 0}, b[3] = {2, 0, 0};
    const float p1[3] = {1, 1, 0}, p2[3] = {-1, 0, 0}, p3[3] = {3, 4, 0};
    float t;
    ENSURE(tl_mesh_segment_distance(p1, a, b, &t) == 1 && t == 0.5f);
    ENSURE(tl_mesh_segment_distance(p2, a, b, &t) == 1 && t == 0);
    ENSURE(tl_mesh_segment_distance(p3, a, b, &t) == sqrtf(17) && t == 1);
    const float c[3] = {1, 1, 1}, p4[3] = {1, 1, 3};
    ENSURE(tl_mesh_segment_distance(p4, c, c, &t) == 2 && t == 0);
    ENSURE(tl_mesh_segment_distance(p4, c, c, NULL) == 2);

    /* Segments: 0 along x from the origin, 1 the point (0, 5, 0), 2 a copy of 0 (ties go to
     * the lower index). Points: (1, 1, 0) → 0 at 1; (0, 4, 0) → 1 at 1; (5, 0, 0) → 0 at 3. */
    const float segments[18] = {0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 5, 0, 0, 0, 0, 2, 0, 0};
    const float points[3][4] = {{1, 1, 0, NAN}, {0, 4, 0, NAN}, {5, 0, 0, NAN}};
    float distance[3];
    uint32_t nearest[3];
    tl_mesh_nearest_segments(distance, nearest, &points[0][0], 3, sizeof points[0], segments, 3);
    ENSURE(nearest[0] == 0 && distance[0] == 1);
    ENSURE(nearest[1] == 1 && distance[1] == 1);
    ENSURE(nearest[2] == 0 && distance[2] == 3);
    tl_mesh_nearest_segments(distance, NULL, &points[0][0], 3, sizeof points[0], segments + 6, 1);
    ENSURE(distance[0] == sqrtf(17) && distance[2] == sqrtf(50));
}

/* The nearest point of the triangle (0,0,0), (2,0,0), (0,2,0) in each Voronoi region, a
 * degenerate triangle, and 2000 random points against a brute-force search over a fine
 * barycentric grid (the returned point is never farther than the grid's best). */
static void triangle_nearest(void) {
    const float a[3] = {0, 0, 0}, b[3] = {2, 0, 0}, c[3] = {0, 2, 0};
    float w[3];
    const float face[3] = {0.5f, 0.5f, 3};
    ENSURE(tl_mesh_triangle_nearest(face, a, b, c, w) == 9);
    ENSURE(w[0] == 0.5f && w[1] == 0.25f && w[2] == 0.25f);
    const float vertex_a[3] = {-1, -1, 0}, vertex_b[3] = {3, -1, 0};
    ENSURE(tl_mesh_triangle_nearest(vertex_a, a, b, c, w) == 2 && w[0] == 1);
    ENSURE(tl_mesh_triangle_nearest(vertex_b, a, b, c, w) == 2 && w[1] == 1);
    const float edge_ab[3] = {1, -1, 0}, edge_bc[3] = {2, 2, 0};
    ENSURE(tl_mesh_triangle_nearest(edge_ab, a, b, c, w) == 1);
    ENSURE(w[0] == 0.5f && w[1] == 0.5f && w[2] == 0);
    ENSURE(fabsf(tl_mesh_triangle_nearest(edge_bc, a, b, c, w) - 2) < 1e-6f);
    ENSURE(w[0] == 0 && fabsf(w[1] - 0.5f) < 1e-6f && fabsf(w[2] - 0.5f) < 1e-6f);
    const float line_c[3] = {4, 0, 0}, off[3] = {3, 1, 0}; /* a, b, c on one line */
    ENSURE(fabsf(tl_mesh_triangle_nearest(off, a, b, line_c, w) - 1) < 1e-6f);
    ENSURE(fabsf(w[0] + w[1] + w[2] - 1) < 1e-6f);
    /* two corners in one (a joint scaled to zero collapses its skin so): the triangle is the
       edge a-c, whose middle is nearest, not a (0/0 there before, NaN weights) */
    const float above[3] = {0.5f, 1, 0}, ac_c[3] = {1, 0, 0};
    ENSURE(tl_mesh_triangle_nearest(above, a, a, ac_c, w) == 1);
    ENSURE(w[0] + w[1] == 0.5f && w[2] == 0.5f);
    ENSURE(tl_mesh_triangle_nearest(above, ac_c, a, a, w) == 1 && w[0] == 0.5f);
    ENSURE(tl_mesh_triangle_nearest(above, a, ac_c, a, w) == 1 && w[1] == 0.5f);
    ENSURE(tl_mesh_triangle_nearest(above, a, a, a, w) == 1.25f && w[0] == 1);
    uint32_t seed = 7;
    for (int n = 0; n < 2000; ++n) {
        float t[4][3];
        for (int i = 0; i < 4; ++i)
            for (int k = 0; k < 3; ++k) {
                seed = seed * 1664525u + 1013904223u;
                t[i][k] = (float)(seed >> 8) / (float)(1u << 24) * 4 - 2;
            }
        float d = tl_mesh_triangle_nearest(t[3], t[0], t[1], t[2], w), best = INFINITY;
        ENSURE(w[0] >= 0 && w[1] >= 0 && w[2] >= 0 && fabsf(w[0] + w[1] + w[2] - 1) < 1e-5f);
        float q[3], e = 0;
        for (int k = 0; k < 3; ++k)
            q[k] = w[0] * t[0][k] + w[1] * t[1][k] + w[2] * t[2][k],
            e += (t[3][k] - q[k]) * (t[3][k] - q[k]);
        ENSURE(fabsf(e - d) <= 1e-4f * (1 + d)); /* the distance is the barycentric point's */
        for (int i = 0; i <= 64; ++i)
            for (int j = 0; i + j <= 64; ++j) {
                float u = (float)i / 64, v = (float)j / 64, g = 0;
                for (int k = 0; k < 3; ++k) {
                    float x = (1 - u - v) * t[0][k] + u * t[1][k] + v * t[2][k] - t[3][k];
                    g += x * x;
                }
                best = g < best ? g : best;
            }
        ENSURE(d <= best + 1e-4f);
    }
}

static tl_mesh_box box(float x0, float y0, float z0, float x1, float y1, float z1) {
    tl_mesh_box b = {{x0, y0, z0}, {x1, y1, z1}};
    return b;
}

/* Overlap = intersection volume / smaller volume, checked both ways round:
 *   nested [1,2]³ in [0,4]³: 1/1 = 1;          disjoint [0,1]³, [2,3]³: 0;
 *   touching [0,1]³, [1,2]×[0,1]²: zero-width intersection, 0;
 *   half: [0,2]³ and [1,3]×[0,2]²: 1·2·2 / 8 = 0.5;
 *   [0,4]³ and [3,5]×[0,2]×[0,2]: 1·2·2 / (2·2·2) = 0.5 (the smaller is the second);
 *   flat: the square z = 1, [1,2]² inside [0,4]³: 1;  at z = 5, outside: 0;
 *   the same square against [1.5,3]×[1,2]×[0,2]: x ratio 0.5/1, y 1, z inside: 0.5;
 *   two coplanar squares [0,2]² and [1,3]² at z = 0: 1·1 / (2·2) = 0.25;
 *   a segment (x in [0,1] at y = z = 1) inside that square [0,2]²? y = 1 in [0,2], z = 0 vs
 *   1: no, 0; the same at z = 0: 1; a point inside a box: 1; an empty box: 0. */
static void box_overlaps(void) {
    struct {
        tl_mesh_box a, b;
        float expected;
    } cases[] = {
        {box(1, 1, 1, 2, 2, 2), box(0, 0, 0, 4, 4, 4), 1},
        {box(0, 0, 0, 1, 1, 1), box(2, 2, 2, 3, 3, 3), 0},
        {box(0, 0, 0, 1, 1, 1), box(1, 0, 0, 2, 1, 1), 0},
        {box(0, 0, 0, 2, 2, 2), box(1, 0, 0, 3, 2, 2), 0.5f},
        {box(0, 0, 0, 4, 4, 4), box(3, 0, 0, 5, 2, 2), 0.5f},
        {box(1, 1, 1, 2, 2, 1), box(0, 0, 0, 4, 4, 4), 1},
        {box(1, 1, 5, 2, 2, 5), box(0, 0, 0, 4, 4, 4), 0},
        {box(1, 1, 1, 2, 2, 1), box(1.5f, 1, 0, 3, 2, 2), 0.5f},
        {box(0, 0, 0, 2, 2, 0), box(1, 1, 0, 3, 3, 0), 0.25f},
        {box(0, 1, 1, 1, 1, 1), box(0, 0, 0, 2, 2, 0), 0},
        {box(0, 1, 0, 1, 1, 0), box(0, 0, 0, 2, 2, 0), 1},
        {box(1, 1, 1, 1, 1, 1), box(0, 0, 0, 2, 2, 2), 1},
        {box(INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY), box(0, 0, 0, 2, 2, 2),
         0},
    };
    for (size_t i = 0; i < COUNT(cases); ++i) {
        float ab = tl_mesh_box_overlap(&cases[i].a, &cases[i].b);
        float ba = tl_mesh_box_overlap(&cases[i].b, &cases[i].a);
        ENSURE_MSG(ab == cases[i].expected && ba == cases[i].expected,
                   "case %zu: %g / %g, expected %g", i, (double)ab, (double)ba,
                   (double)cases[i].expected);
    }

    /* Box of a subset, and the empty box of nothing. */
    const float points[4][3] = {{0, 0, 0}, {5, -1, 2}, {-3, 4, 1}, {100, 100, 100}};
    const uint32_t subset[3] = {0, 1, 2};
    tl_mesh_box b = tl_mesh_box_of(&points[0][0], 4, sizeof points[0], subset, 3);
    ENSURE(b.min[0] == -3 && b.min[1] == -1 && b.min[2] == 0);
    ENSURE(b.max[0] == 5 && b.max[1] == 4 && b.max[2] == 2);
    b = tl_mesh_box_of(&points[0][0], 4, sizeof points[0], NULL, 0);
    ENSURE(b.max[0] == 100);
    b = tl_mesh_box_of(&points[0][0], 4, sizeof points[0], subset, 0);
    ENSURE(b.min[0] == INFINITY && b.max[0] == -INFINITY);
}

static int compare_float(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

/* 1..10 shuffled: rank p/100 × 9, so p0 = 1, p50 = 5.5 (between 5 and 6), p95 = 9.55,
 * p100 = 10. With INFINITY: {1, 2, ∞}: p50 = 2, p75 (rank 1.5) = ∞, p100 = ∞. Then random
 * arrays with many repeats against sorting. */
static void percentiles(void) {
    float v[10] = {7, 3, 10, 1, 6, 9, 2, 5, 8, 4};
    float copy[10];
    const float p[4] = {0, 50, 95, 100}, expected[4] = {1, 5.5f, 9.55f, 10};
    for (int i = 0; i < 4; ++i) {
        memcpy(copy, v, sizeof v);
        ENSURE_NEAR(tl_mesh_percentile(copy, 10, p[i]), expected[i], 1e-6);
    }
    float inf[3] = {INFINITY, 1, 2};
    ENSURE(tl_mesh_percentile(inf, 3, 50) == 2);
    ENSURE(tl_mesh_percentile(inf, 3, 75) == INFINITY);
    ENSURE(tl_mesh_percentile(inf, 3, 100) == INFINITY);
    float one = 42;
    ENSURE(tl_mesh_percentile(&one, 1, 99) == 42);
    for (size_t k = 0; k < 10; ++k) { /* the k-th smallest, no interpolation */
        memcpy(copy, v, sizeof v);
        ENSURE(tl_mesh_nth(copy, 10, k) == (float)(k + 1));
    }

    enum { n = 1001 };
    float* values = malloc(n * sizeof(float));
    float* sorted = malloc(n * sizeof(float));
    for (int run = 0; run < 50; ++run) {
        size_t count = 1 + rng_next() % n;
        for (size_t i = 0; i < count; ++i) /* few distinct values: many ties */
            sorted[i] = (float)(rng_next() % (run % 2 ? 7 : 100000));
        if (run % 5 == 0) qsort(sorted, count, sizeof(float), compare_float); /* sorted input */
        memcpy(values, sorted, count * sizeof(float));
        qsort(sorted, count, sizeof(float), compare_float);
        float q = (float)(rng_next() % 10001) / 100.0f;
        double rank = (double)q / 100.0 * (double)(count - 1);
        size_t k = (size_t)rank;
        double want = k + 1 < count ? sorted[k] + (rank - (double)k) * (sorted[k + 1] - sorted[k])
                                    : sorted[k];
        float got = tl_mesh_percentile(values, count, q);
        ENSURE_MSG(fabs(got - want) <= 1e-6 * (1 + fabs(want)), "run %d: p%g of %zu: %g vs %g", run,
                   (double)q, count, (double)got, want);
    }
    free(values), free(sorted);
}

/* ---- A real file --------------------------------------------------------------------- */

/* The knight with a procedurally modelled tail of two overlapping, unwelded shells (skin
 * primitive 3 with 313 vertices, fur primitive 4 with 177, each with a UV seam), hanging
 * straight down between the legs. All five primitives of mesh 0 are concatenated, welded at
 * 1e-5 H (H from the truth file, taken into bind space), and every function runs on it. */
static void knight_tail_shells(void) {
    tl_error err = {0};
    tl_gltf* doc = NULL;
    ENSURE_OK(tl_gltf_load(tl_test_shared("cases/knight-tailed.glb"), &doc, &err), err);
    json_error_t jerr;
    json_t* truth = json_load_file(tl_test_shared("cases/knight-tailed.truth.json"), 0, &jerr);
    ENSURE_MSG(truth, "truth: %s", jerr.text);

    /* Rest world = bind_to_world · bind; the truth's points and H are in the rest world. */
    float to_world[16], to_bind[16];
    json_t* m = json_object_get(truth, "bind_to_world");
    ENSURE(json_array_size(m) == 16);
    for (int k = 0; k < 16; ++k)
        to_world[k] = (float)json_number_value(json_array_get(m, k));
    tl_mat4_invert(to_bind, to_world);
    float scale =
        sqrtf(to_world[0] * to_world[0] + to_world[1] * to_world[1] + to_world[2] * to_world[2]);
    float height = (float)json_number_value(json_object_get(truth, "H")) / scale;
    float root[3], tip[3];
    for (int k = 0; k < 3; ++k) {
        root[k] = (float)json_number_value(json_array_get(json_object_get(truth, "root"), k));
        tip[k] = (float)json_number_value(json_array_get(json_object_get(truth, "tail_tip"), k));
    }
    tl_mat4_transform_point(root, to_bind, root);
    tl_mat4_transform_point(tip, to_bind, tip);

    const tl_gltf_mesh* mesh = &doc->meshes[0];
    ENSURE(mesh->primitive_count == 5);
    size_t base[6] = {0}, index_base[6] = {0};
    for (uint32_t p = 0; p < 5; ++p) {
        const tl_gltf_primitive* prim = &mesh->primitives[p];
        base[p + 1] = base[p] + tl_gltf_primitive_vertex_count(doc, prim);
        index_base[p + 1] =
            index_base[p] + (prim->indices == TL_NONE ? tl_gltf_primitive_vertex_count(doc, prim)
                                                      : doc->accessors[prim->indices].count);
    }
    ENSURE(base[4] - base[3] == 313 && base[5] - base[4] == 177);
    size_t vertex_count = base[5], index_count = index_base[5];
    float* positions = malloc(3 * vertex_count * sizeof(float));
    uint32_t* indices = malloc(index_count * sizeof(uint32_t));
    for (uint32_t p = 0; p < 5; ++p) {
        const tl_gltf_primitive* prim = &mesh->primitives[p];
        ENSURE(prim->mode == 4);
        ENSURE_OK(tl_gltf_accessor_read_float(doc, (uint32_t)prim->position,
                                              positions + 3 * base[p], 3 * (base[p + 1] - base[p]),
                                              &err),
                  err);
        uint32_t* idx = indices + index_base[p];
        size_t n = index_base[p + 1] - index_base[p];
        if (prim->indices == TL_NONE) {
            for (size_t i = 0; i < n; ++i)
                idx[i] = (uint32_t)i;
        } else {
            ENSURE_OK(tl_gltf_accessor_read_uint(doc, (uint32_t)prim->indices, idx, n, &err), err);
        }
        for (size_t i = 0; i < n; ++i)
            idx[i] += (uint32_t)base[p]; /* the primitive's base */
    }

    uint32_t* remap = malloc(vertex_count * sizeof(uint32_t));
    size_t welded = tl_mesh_weld(remap, positions, vertex_count, 12, 1e-5f * height);
    float* welded_positions = malloc(3 * welded * sizeof(float));
    tl_mesh_weld_positions(welded_positions, remap, positions, vertex_count, 12);
    uint32_t* edges = malloc(2 * tl_mesh_edges_bound(index_count) * sizeof(uint32_t));
    uint32_t* raw_component = malloc(vertex_count * sizeof(uint32_t));
    size_t raw_edges = tl_mesh_edges(edges, indices, index_count, NULL);
    size_t raw_components = tl_mesh_components(raw_component, edges, raw_edges, NULL, vertex_count);
    size_t edge_count = tl_mesh_edges(edges, indices, index_count, remap);
    uint32_t* component = malloc(welded * sizeof(uint32_t));
    size_t components = tl_mesh_components(component, edges, edge_count, NULL, welded);
    fprintf(stderr,
            "  knight: %zu vertices -> %zu welded (tolerance %.3g); %zu -> %zu edges; "
            "%zu -> %zu components\n",
            vertex_count, welded, 1e-5 * height, raw_edges, edge_count, raw_components, components);

    /* Each shell is one piece already (a seam along a tube leaves it connected), but its seam
     * copies weld away; welded, all of a shell's vertices share one component. Both shells
     * end in the same point, so welding joins them there into one tail, and the tail stays
     * apart from the body (primitives 0-2). */
    uint8_t* in_shell[2];
    uint32_t* members[2];
    size_t member_count[2] = {0, 0};
    for (int s = 0; s < 2; ++s) {
        size_t first = base[3 + s], end = base[4 + s];
        in_shell[s] = calloc(welded, 1);
        members[s] = malloc(welded * sizeof(uint32_t));
        for (size_t v = first; v < end; ++v) {
            ENSURE_MSG(component[remap[v]] == component[remap[first]], "shell %d vertex %zu apart",
                       s, v - first);
            ENSURE(raw_component[v] == raw_component[first]);
            if (!in_shell[s][remap[v]]) members[s][member_count[s]++] = remap[v];
            in_shell[s][remap[v]] = 1;
        }
        fprintf(stderr, "  shell %d (primitive %d): %zu vertices, %zu after welding\n", s, 3 + s,
                end - first, member_count[s]);
        ENSURE(member_count[s] < end - first); /* the seam's copies merged */
    }
    uint32_t tail = component[remap[base[3]]];
    ENSURE(component[remap[base[4]]] == tail);
    for (size_t v = 0; v < base[3]; ++v)
        ENSURE(component[remap[v]] != tail);
    size_t shared = 0;
    for (uint32_t w = 0; w < welded; ++w) {
        if (!in_shell[0][w] || !in_shell[1][w]) continue;
        ++shared;
        fprintf(stderr, "  shells share welded vertex %u, %.5f from the root, %.5f from the tip\n",
                w, (double)tl_vec3_distance(welded_positions + 3 * w, root),
                (double)tl_vec3_distance(welded_positions + 3 * w, tip));
    }
    ENSURE(shared == 1);

    /* Had they not touched, the merge rule would join them: their boxes overlap by more than
     * half. */
    tl_mesh_box boxes[2];
    for (int s = 0; s < 2; ++s)
        boxes[s] = tl_mesh_box_of(welded_positions, welded, 12, members[s], member_count[s]);
    float overlap = tl_mesh_box_overlap(&boxes[0], &boxes[1]);
    fprintf(stderr, "  shell box overlap %.3f\n", (double)overlap);
    ENSURE(overlap > 0.5f);

    /* Shape: the skin shell is long (elongation sqrt(λ1/λ2) ≥ 1.8) along the root–tip line. */
    float covariance[9], mean[3], values[3], vectors[9];
    tl_mesh_covariance(covariance, mean, welded_positions, welded, 12, members[0], member_count[0]);
    tl_mesh_eigen_symmetric(values, vectors, covariance);
    float axis[3] = {tip[0] - root[0], tip[1] - root[1], tip[2] - root[2]};
    float length = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (int k = 0; k < 3; ++k)
        axis[k] /= length;
    float elongation = sqrtf(values[0] / values[1]);
    float alignment = fabsf(axis[0] * vectors[0] + axis[1] * vectors[1] + axis[2] * vectors[2]);
    fprintf(stderr, "  skin shell elongation %.2f, main axis · root–tip %.3f\n", (double)elongation,
            (double)alignment);
    ENSURE(elongation >= 1.8f);
    ENSURE(alignment > 0.9f);

    /* Geodesics over the skin shell from its root ring (the 5% of its vertices nearest the
     * truth root, the spec's rule for a separate shell): the farthest vertex is at the tip,
     * and no vertex is nearer by surface than in a straight line from the nearest source. */
    uint32_t* offsets = malloc((welded + 1) * sizeof(uint32_t));
    uint32_t* neighbors = malloc(2 * edge_count * sizeof(uint32_t));
    float* lengths = malloc(2 * edge_count * sizeof(float));
    tl_mesh_adjacency(offsets, neighbors, lengths, edges, edge_count, welded, welded_positions, 12);
    float* root_distance = malloc(welded * sizeof(float));
    float* sorted = malloc(member_count[0] * sizeof(float));
    const float segment[6] = {root[0], root[1], root[2], root[0], root[1], root[2]};
    tl_mesh_nearest_segments(root_distance, NULL, welded_positions, welded, 12, segment, 1);
    for (size_t i = 0; i < member_count[0]; ++i)
        sorted[i] = root_distance[members[0][i]];
    float ring_limit = tl_mesh_percentile(sorted, member_count[0], 5);
    uint32_t* sources = malloc(member_count[0] * sizeof(uint32_t));
    size_t source_count = 0;
    uint8_t* mask = calloc(welded, 1);
    for (size_t i = 0; i < member_count[0]; ++i) {
        mask[members[0][i]] = 1;
        if (root_distance[members[0][i]] <= ring_limit) sources[source_count++] = members[0][i];
    }
    float* distance = malloc(welded * sizeof(float));
    void* scratch = malloc(tl_mesh_geodesic_scratch_size(welded));
    size_t reached = tl_mesh_geodesic(distance, offsets, neighbors, lengths, welded, mask, sources,
                                      source_count, scratch);
    ENSURE(reached == member_count[0]);
    for (uint32_t w = 0; w < welded; ++w)
        ENSURE((distance[w] < INFINITY) == (mask[w] != 0));
    for (size_t i = 0; i < member_count[0]; ++i)
        sorted[i] = distance[members[0][i]];
    float tail_length = tl_mesh_percentile(sorted, member_count[0], 99);
    uint32_t farthest = members[0][0];
    for (size_t i = 0; i < member_count[0]; ++i)
        if (distance[members[0][i]] > distance[farthest]) farthest = members[0][i];
    for (size_t i = 0; i < member_count[0]; ++i) {
        uint32_t w = members[0][i];
        float straight = INFINITY;
        for (size_t s = 0; s < source_count; ++s)
            straight = fminf(straight, tl_vec3_distance(welded_positions + 3 * w,
                                                        welded_positions + 3 * sources[s]));
        ENSURE(distance[w] >= straight * (1 - 1e-5f));
    }
    float tip_error = tl_vec3_distance(welded_positions + 3 * farthest, tip);
    fprintf(stderr,
            "  skin shell: %zu sources, geodesic p99 %.5f (root–tip %.5f, %.3f H), farthest vertex "
            "%.5f from the tip\n",
            source_count, (double)tail_length, (double)length, (double)(tail_length / height),
            (double)tip_error);
    ENSURE(tip_error < 0.1f * length);
    /* The p99 lies between the straight root–tip distance less the ring's reach and the
     * path that goes the long way round a tube: bounded by geometry, not by this code. */
    ENSURE(tail_length > 0.8f * length && tail_length < 1.5f * length);

    /* Point–segment distance to the root–tip line: never more than to either end, equal to
     * the batch version, and the shell is long — thinner (2 × p95 radius) than long. */
    const float axis_segment[6] = {root[0], root[1], root[2], tip[0], tip[1], tip[2]};
    float* axis_distance = malloc(welded * sizeof(float));
    tl_mesh_nearest_segments(axis_distance, NULL, welded_positions, welded, 12, axis_segment, 1);
    for (size_t i = 0; i < member_count[0]; ++i) {
        const float* p = welded_positions + 3 * members[0][i];
        float t, d = tl_mesh_segment_distance(p, axis_segment, axis_segment + 3, &t);
        ENSURE(d == axis_distance[members[0][i]]);
        ENSURE(d <= tl_vec3_distance((float*)p, root) && d <= tl_vec3_distance((float*)p, tip));
        ENSURE(t >= 0 && t <= 1);
        sorted[i] = d;
    }
    float radius = tl_mesh_percentile(sorted, member_count[0], 95);
    fprintf(stderr, "  skin shell radius (p95 distance to root–tip) %.5f = %.2f of its length\n",
            (double)radius, (double)(radius / length));
    ENSURE(2 * radius < length);
    free(axis_distance);

    free(positions), free(indices), free(remap), free(welded_positions), free(edges);
    free(raw_component), free(component), free(members[0]), free(members[1]), free(in_shell[0]),
        free(in_shell[1]), free(offsets);
    free(neighbors), free(lengths), free(root_distance), free(sorted), free(sources), free(mask);
    free(distance), free(scratch);
    json_decref(truth);
    tl_gltf_destroy(doc);
}

/* Nearest point against brute force on three kinds of set: a random cloud, a long thin tube
 * (a tail: the grid must not blow up on an elongated box), and a flat square (zero-volume
 * box); queries inside, on and far outside each set. */
static void nearest_points_match_brute_force(void) {
    enum { n = 3000, q = 500 };
    float* points = malloc(3 * n * sizeof(float));
    float* queries = malloc(3 * q * sizeof(float));
    uint32_t* got = malloc(q * sizeof *got);
    for (int kind = 0; kind < 3; ++kind) {
        for (int i = 0; i < n; ++i) {
            float* p = points + 3 * i;
            if (kind == 0)
                p[0] = rng_float(-1, 1), p[1] = rng_float(-1, 1), p[2] = rng_float(-1, 1);
            if (kind == 1)
                p[0] = rng_float(0, 100), p[1] = rng_float(-0.01f, 0.01f),
                p[2] = rng_float(-0.01f, 0.01f);
            if (kind == 2) p[0] = rng_float(-1, 1), p[1] = rng_float(-1, 1), p[2] = 0;
        }
        for (int i = 0; i < q; ++i) {
            float spread = i < q / 2 ? 1.0f : 50.0f;
            for (int k = 0; k < 3; ++k)
                queries[3 * i + k] = rng_float(-spread, spread);
        }
        memcpy(queries, points + 30, 3 * sizeof(float)); /* exactly on a point */
        ENSURE(tl_mesh_nearest_points(got, queries, q, 12, points, n, 12) == q);
        for (int i = 0; i < q; ++i) {
            const float* x = queries + 3 * i;
            float best = INFINITY;
            uint32_t want = 0;
            for (uint32_t k = 0; k < n; ++k) {
                const float* p = points + 3 * k;
                float d = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) +
                          (x[2] - p[2]) * (x[2] - p[2]);
                if (d < best) best = d, want = k;
            }
            ENSURE_MSG(got[i] == want, "set %d query %d: got %u, nearest is %u", kind, i, got[i],
                       want);
        }
        ENSURE(got[0] == 10);
    }
    free(points), free(queries), free(got);
}

int main(int argc, char** argv) {
    static const tl_test_case cases[] = {
        {"weld_quad_with_seam", weld_quad_with_seam},
        {"weld_packed_matches_merge", weld_packed_matches_merge},
        {"nearest_points_match_brute_force", nearest_points_match_brute_force},
        {"weld_tolerance_and_chains", weld_tolerance_and_chains},
        {"weld_random_jittered_copies", weld_random_jittered_copies},
        {"weld_matches_brute_force", weld_matches_brute_force},
        {"components_of_two_cubes", components_of_two_cubes},
        {"grid_components_and_masks", grid_components_and_masks},
        {"geodesic_around_a_hole", geodesic_around_a_hole},
        {"geodesic_along_a_strip", geodesic_along_a_strip},
        {"geodesic_random_properties", geodesic_random_properties},
        {"geodesic_lower_matches_whole_runs", geodesic_lower_matches_whole_runs},
        {"eigen_known_matrices", eigen_known_matrices},
        {"covariance_known_points", covariance_known_points},
        {"segment_distances", segment_distances},
        {"triangle_nearest", triangle_nearest},
        {"box_overlaps", box_overlaps},
        {"percentiles", percentiles},
        {"knight_tail_shells", knight_tail_shells},
    };
    return tl_test_main(argc, argv, cases, COUNT(cases));
}
