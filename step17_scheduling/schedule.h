/* Step 17's schedule, for any kernel that multiplies tile after tile with a TMA producer and wgmma
 * consumers (step 13's pipeline): persistent blocks in clusters, handed work items in turn, a ring
 * of stages that runs on across the items, and a tile the blocks of a cluster share loaded once by
 * TMA multicast. Step 17 walks tiles of C with it, step 18 the moduli's tiles. CUDA C, included by
 * a step's .cu file after step.h.
 *
 *   - The walk: one block per SM for the whole launch, in clusters of `cluster` blocks; with Q
 *     clusters, cluster q takes work items q, q + Q, q + 2Q, ... (schedule_clusters: as many as fit
 *     on the GPU at once, no more than the items).
 *   - The ring: a block counts its k tiles from the kernel's start (it), across items; k tile `it`
 *     lives in stage it % stages, whose barriers are in phase (it / stages) & 1. The producer waits
 *     until the stage is empty, the consumers until it is full: the next item's first stages load
 *     while the consumers still finish the last one.
 *   - The multicast: each block of a cluster loads its 1 / cluster of a tile all of them need, into
 *     every block's shared memory at once; so a stage is empty only when the consumers of every
 *     block are done with it, and each consumer warpgroup tells every block's barrier. */
#ifndef SCHEDULE_H
#define SCHEDULE_H

#include "device/cluster.h"
#include "device/mbarrier.h"
#include "device/tma.h"

/* The ring's barriers, by thread 0 of each block: full[s] awaits the producer's one arrival and
 * the stage's bytes, empty[s] one arrival from each consumer warpgroup of the cluster. Every
 * barrier of the cluster is ready before any block's copy or remote arrival can reach it. */
__device__ static __forceinline__ void schedule_init(uint64_t *full, uint64_t *empty, int stages,
                                                     int consumers_in_cluster)
{
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; s++) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], consumers_in_cluster);
        }
        fence_mbarrier_init();
    }
    cluster_sync();
}

/* The producer, before it loads k tile `it`: its stage is empty (the first round passes at once). */
__device__ static __forceinline__ void schedule_wait_empty(uint64_t *empty, int it, int stages)
{
    mbarrier_wait_parity(&empty[it % stages], ((it / stages) & 1) ^ 1);
}

/* A consumer, before it reads k tile `it`: its bytes have landed. */
__device__ static __forceinline__ void schedule_wait_full(uint64_t *full, int it, int stages)
{
    mbarrier_wait_parity(&full[it % stages], (it / stages) & 1);
}

/* A consumer warpgroup is done with the stage of k tile `it`: it tells every block of the cluster
 * (each block's producer may overwrite this stage in all of them by multicast): its own barrier by
 * the plain arrive, the others' by the remote one. */
__device__ static __forceinline__ void schedule_release(uint64_t *empty, int it, int stages, int cluster)
{
    if (threadIdx.x % 128 != 0)
        return;
    mbarrier_arrive(&empty[it % stages]);
    for (int cta = 0; cta < cluster; cta++)
        if (cta != (int)cluster_ctarank())
            mbarrier_arrive_cluster(&empty[it % stages], cta);
}

/* The producer's share of a tile every block of the cluster needs: rows row0 ... row0 + rows - 1
 * (from column col) of the map, tile_bytes in all at `tile`. Block `rank` loads its 1 / cluster of
 * the rows, and the TMA writes them into the same place of every block's shared memory; each
 * block's full barrier counts the whole tile's bytes. One block alone loads the tile plainly. */
__device__ static __forceinline__ void schedule_load_shared(unsigned char *tile, const CUtensorMap *map, int row0,
                                                            int rows, int col, int tile_bytes, uint64_t *full,
                                                            int rank, int cluster)
{
    if (cluster == 1)
        cp_async_bulk_tensor_2d_global_to_shared(tile, map, row0, col, full);
    else
        cp_async_bulk_tensor_2d_global_to_shared_multicast(tile + rank * (tile_bytes / cluster), map,
                                                           row0 + rank * (rows / cluster), col, full,
                                                           (uint16_t)((1u << cluster) - 1));
}

/* At the kernel's end: no block leaves while another of its cluster may still arrive on its barriers. */
__device__ static __forceinline__ void schedule_finish()
{
    cluster_sync();
}

/* How many clusters of `cluster` blocks of the kernel fit on the GPU at once, one block per SM:
 * the persistent grid (setup asks once; each launch takes no more than its work items). */
static int schedule_clusters(const void *kernel, int cluster, int threads, size_t smem)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(cluster, 1, 1);
    config.blockDim = dim3(threads, 1, 1);
    config.dynamicSmemBytes = smem;
    int clusters;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    if (clusters < 1) {
        fprintf(stderr, "%s: not one cluster of %d blocks fits on this GPU\n", step_info.program, cluster);
        exit(EXIT_CUDA_ERROR);
    }
    return clusters;
}

/* The blocks of a launch over `items` work items: clusters that fit, no more than the items. */
static int schedule_blocks(int clusters, int items, int cluster)
{
    return (clusters < items ? clusters : items) * cluster;
}

#endif
