/* The peer: NVIDIA CUTLASS's tensor-core SGEMM for Ampere (mma.sync), on the same harness,
 * options and output as the steps and cuBLAS. Two arithmetics (--math): TF32, where the
 * tensor cores multiply inputs rounded to a 10-bit mantissa; and 3xTF32, where each input
 * is split into a TF32 "big" part and a TF32 "small" remainder and three products (small
 * x big, big x small, big x big) recover FP32's accuracy at three times the tensor work.
 * CUTLASS is a C++ template library: a kernel is a type, built from the tile shapes, the
 * pipeline depth and the arithmetic; each configuration below is one such type per
 * arithmetic. Everything else is the harness's. */
#include "step.h"

#include <cutlass/cutlass.h>
#include <cutlass/gemm/device/gemm.h>
#include <new>
#include <type_traits>
#include <stdio.h>
#include <stdlib.h>

/* The kernel of one configuration and arithmetic. A, B and C are row-major FP32, as the
 * harness keeps them, and the accumulators FP32. Sm80 is the architecture the kernel is
 * written for (mma.sync on TF32, cp.async); it runs on every GPU from 8.0 on. The warp
 * tile takes the block's whole BK; 16x8x8 is the one TF32 mma.sync instruction. The
 * epilogue computes alpha AB + beta C, 4 floats per store; the alignments of A and B
 * (4 floats: 16-byte loads) are why n is padded to a multiple of 4 (matmult_gpu). No
 * serial split-K, so no workspace. MathOperator picks the arithmetic: OpMultiplyAdd
 * rounds each float to TF32 for one mma; OpMultiplyAddFastF32 is 3xTF32. */
using RowMajor = cutlass::layout::RowMajor;
template <int BM, int BN, int BK, int WM, int WN, int STAGES, typename MathOperator>
using Gemm = cutlass::gemm::device::Gemm<
    float, RowMajor, float, RowMajor, float, RowMajor, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<BM, BN, BK>, cutlass::gemm::GemmShape<WM, WN, BK>, cutlass::gemm::GemmShape<16, 8, 8>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, STAGES, 4, 4, false, MathOperator>;

/* The configurations, one line each: an id (its place in the list), the block's tile of C
 * BM x BN and of k BK, the warp's tile WM x WN (x BK), and the stages (tiles of A and B in
 * flight in shared memory, as in step 10). The shapes are ones CUTLASS's own library
 * builds for these two arithmetics (its generator.py), and they differ between them:
 * 3xTF32 holds a big and a small part of every input fragment in registers, so its warps
 * take half the tile of C (32x64 or 64x32, not 64x64), or its kernels would spill.
 * The harness runs the first of the list that fits the GPU's shared memory per block: first
 * one that fits every GPU from 8.0 on (an RTX 30 or 40 allows 99 KB), then deeper
 * pipelines and larger tiles for an A100 or H100, smaller ones for small n, last one that
 * needs no opt-in past 48 KB. --config runs any of them. */
#define TF32_CONFIGS(X, op)              \
    X(op, 0, 128, 128, 32, 64, 64, 3)    \
    X(op, 1, 128, 128, 32, 64, 64, 4)    \
    X(op, 2, 256, 128, 32, 64, 64, 3)    \
    X(op, 3, 128, 256, 32, 64, 64, 3)    \
    X(op, 4, 128, 64, 32, 64, 32, 3)     \
    X(op, 5, 128, 128, 16, 64, 64, 3)
#define FAST_F32_CONFIGS(X, op)          \
    X(op, 0, 128, 128, 32, 32, 64, 3)    \
    X(op, 1, 128, 128, 16, 32, 64, 4)    \
    X(op, 2, 256, 64, 32, 64, 32, 3)     \
    X(op, 3, 64, 256, 32, 32, 64, 3)     \
    X(op, 4, 128, 64, 32, 64, 32, 3)     \
    X(op, 5, 128, 64, 16, 64, 32, 3)

/* What a configuration's setup builds for its launches: CUTLASS's kernel parameters (the
 * matrices' addresses among them) and the grid. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, typename MathOperator>
struct gemm_state {
    typename Gemm<BM, BN, BK, WM, WN, STAGES, MathOperator>::GemmKernel::Params params;
    dim3 grid;
};

/* The lists expand twice: the harness's list (name and shared memory) and, in the same
 * order, the ops of each (common/step.h: its state, setup and launch). A configuration's
 * shared memory is its kernel's SharedStorage: the pipeline's stages of A and B tiles (the
 * epilogue reuses the bytes). */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, typename MathOperator>
static void setup_gemm(struct step_run *run);
template <int BM, int BN, int BK, int WM, int WN, int STAGES, typename MathOperator>
static void launch_gemm(const struct step_run *run);
#define CONFIG_ENTRY(op, id, bm, bn, bk, wm, wn, s)                                   \
    {id, #bm "x" #bn "x" #bk "_" #wm "x" #wn "x" #bk "/" #s,                          \
     sizeof(typename Gemm<bm, bn, bk, wm, wn, s, op>::GemmKernel::SharedStorage)},
#define CONFIG_OPS(op, id, bm, bn, bk, wm, wn, s)                                     \
    {.state_bytes = sizeof(gemm_state<bm, bn, bk, wm, wn, s, op>),                    \
     .setup = setup_gemm<bm, bn, bk, wm, wn, s, op>,                                  \
     .launch = launch_gemm<bm, bn, bk, wm, wn, s, op>},
static const struct step_config tf32_list[] = {TF32_CONFIGS(CONFIG_ENTRY, cutlass::arch::OpMultiplyAdd)};
static const struct step_ops tf32_ops[] = {TF32_CONFIGS(CONFIG_OPS, cutlass::arch::OpMultiplyAdd)};
static const struct step_config fast_f32_list[] = {
    FAST_F32_CONFIGS(CONFIG_ENTRY, cutlass::arch::OpMultiplyAddFastF32)};
static const struct step_ops fast_f32_ops[] = {FAST_F32_CONFIGS(CONFIG_OPS, cutlass::arch::OpMultiplyAddFastF32)};

/* Each arithmetic its own list (step_math's configs): the harness asks for the list of the
 * arithmetic --math chose, so --config and the choice by shared memory see the right one. */
static int tf32_configs(int n, const struct step_config **list)
{
    (void)n; /* one list for every n, for now */
    *list = tf32_list;
    return sizeof tf32_list / sizeof *tf32_list;
}

static int fast_f32_configs(int n, const struct step_config **list)
{
    (void)n;
    *list = fast_f32_list;
    return sizeof fast_f32_list / sizeof *fast_f32_list;
}

enum { MATH_TF32, MATH_3XTF32 };
static const struct step_math maths[] = {
    {.name = "tf32", .row_name = "cutlass_tf32", .precision = PRECISION_TF32,
     .lesson = "CUTLASS TF32, mma.sync (the peer)", .configs = tf32_configs},
    {.name = "3xtf32", .row_name = "cutlass_3xtf32", .precision = PRECISION_FP32,
     .lesson = "CUTLASS 3xTF32, mma.sync (the peer)", .configs = fast_f32_configs},
    {.name = NULL}};

const struct step_info step_info = {
    .program = "cutlass",
    .lesson = "CUTLASS tensor-core SGEMM (mma.sync): the peer",
    .chapter = "reference",
    .min_cc = 80,
    .needs = "TF32 tensor cores (mma.sync)",
    .config_legend = "threadblock BM x BN x BK _ warp WM x WN x BK / stages",
    .precision = PRECISION_TF32,
    .maths = maths,
};

static void cutlass_check(cutlass::Status status, const char *what, int line)
{
    if (status == cutlass::Status::kSuccess)
        return;
    fprintf(stderr, "cutlass: CUTLASS error %s (%d) in %s at %s:%d\n", cutlassGetStatusString(status), (int)status,
            what, __FILE__, line);
    exit(EXIT_CUDA_ERROR);
}
#define CUTLASS_CHECK(call) cutlass_check((call), #call, __LINE__)

/* One kernel. CUTLASS's device-level Gemm would run it in one call, but its run() asks for
 * the shared memory again (cudaFuncSetAttribute) at every launch, and that host work would
 * fall between the timing events. So the work is split as the harness splits a run: setup
 * uses its checks as they are, builds its parameters as its initialize() builds them and
 * opts the kernel in; the launch is its run()'s kernel launch, alone. */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, typename MathOperator>
static void setup_gemm(struct step_run *run)
{
    using Op = Gemm<BM, BN, BK, WM, WN, STAGES, MathOperator>;
    using Kernel = typename Op::GemmKernel;
    using State = gemm_state<BM, BN, BK, WM, WN, STAGES, MathOperator>;
    static_assert(alignof(State) <= STEP_STATE_ALIGN, "the harness aligns a step's state to STEP_STATE_ALIGN");
    static_assert(std::is_trivially_destructible<State>::value, "the harness frees the state without destroying it");
    const struct dev_mats *m = &run->mats;
    const int smem = (int)sizeof(typename Kernel::SharedStorage);
    /* The padded matrices are zero up to n rounded up to 4 (common/padded.c): the GEMM of that
     * size is the GEMM of size n, with zeros around it that are not copied back. */
    const int n = (m->n + 3) / 4 * 4;
    const cutlass::gemm::GemmCoord size(n, n, n);
    const typename Op::Arguments args(size, {m->a, (int64_t)m->lda}, {m->b, (int64_t)m->ldb},
                                      {m->c, (int64_t)m->ldc}, {m->c, (int64_t)m->ldc},
                                      {1.0f, 0.0f}); /* C = 1 AB + 0 C: C is not read */
    CUTLASS_CHECK(Op::can_implement(args));
    const cutlass::gemm::GemmCoord tiles = typename Kernel::ThreadblockSwizzle().get_tiled_shape(
        size, {BM, BN, BK}, 1);
    new (run->state) State{typename Kernel::Params(size, tiles, args.ref_A.non_const_ref(), args.ref_B.non_const_ref(),
                                                   args.ref_C.non_const_ref(), args.ref_D, args.epilogue),
                           typename Kernel::ThreadblockSwizzle().get_grid_shape(tiles)};
    if (smem > SMEM_DEFAULT_BYTES) /* past 48 KB a kernel must opt in */
        CUDA_CHECK(cudaFuncSetAttribute(cutlass::Kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, typename MathOperator>
static void launch_gemm(const struct step_run *run)
{
    using Kernel = typename Gemm<BM, BN, BK, WM, WN, STAGES, MathOperator>::GemmKernel;
    const auto *state = (const gemm_state<BM, BN, BK, WM, WN, STAGES, MathOperator> *)run->state;
    cutlass::Kernel<Kernel><<<state->grid, Kernel::kThreadCount, (int)sizeof(typename Kernel::SharedStorage)>>>(
        state->params);
}

/* The shared host function of the steps and cuBLAS (common/padded.c) with a tile of 4:
 * device rows pitched, n padded to a multiple of 4 with zeros, because the kernels load A
 * and B 4 floats (16 bytes) at a time and need every row's width, and k, to be a multiple
 * of 4. CUTLASS gets the same allocation, copies and timing as the steps and cuBLAS; the ops
 * are those of the configuration the harness chose, in the arithmetic --math chose. */
void matmult_gpu(const float *a, int lda, const float *b, int ldb, float *c, int ldc, int n,
                 int kernel_reps, struct gpu_run *run)
{
    const struct step_ops *ops = run->math == &maths[MATH_3XTF32] ? fast_f32_ops : tf32_ops;
    matmult_padded(a, lda, b, ldb, c, ldc, n, 4, &ops[run->config->id], kernel_reps, run);
}
