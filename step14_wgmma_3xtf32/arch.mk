# wgmma and setmaxnreg exist only in sm_90a code (Hopper, compute capability 9.0): this step
# is built for that architecture alone, and says so and exits 4 on any other GPU.
STEP_ARCH := sm_90a
