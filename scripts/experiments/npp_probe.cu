// Probe of NPP's 16-bit histograms on the levels of 1024 bins over [0, 65535) (the finding
// behind make_levels() in cuda/src/kernels/npp.cu). On the GPU host:
//   nvcc -O2 -arch=sm_90 npp_probe.cu -o npp_probe -lnppist -lnppc && ./npp_probe
// Result on the H100 (2026-11-22, CUDA 13): nppiEvenLevelsHost_32s gives exactly the ceil
// thresholds, and nppiHistogramRange_16u_C1R counts every sample into the right bin for every
// level set tried here.
#include <nppcore.h>
#include <nppi_statistics_functions.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <cmath>
static NppStreamContext ctx() {
  NppStreamContext c{}; int d; cudaGetDevice(&d); c.hStream = 0; c.nCudaDeviceId = d;
  cudaDeviceProp p; cudaGetDeviceProperties(&p, d);
  c.nMultiProcessorCount = p.multiProcessorCount; c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = p.maxThreadsPerBlock; c.nSharedMemPerBlock = p.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = p.major; c.nCudaDevAttrComputeCapabilityMinor = p.minor; c.nStreamFlags = 0;
  return c;
}
void run(int W, int H, std::vector<int> lv, const char* what) {
  std::vector<unsigned short> img(W*H);
  for (int y=0;y<H;y++) for (int x=0;x<W;x++) img[y*W+x] = x%3==0?0:(x%3==1?65534:65535);
  long c0=0,c1=0,c2=0; for (auto v: img) { if(v==0)c0++; else if(v==65534)c1++; else c2++; }
  unsigned short* d; size_t pitch; cudaMallocPitch((void**)&d, &pitch, W*2, H);
  cudaMemcpy2D(d, pitch, img.data(), W*2, W*2, H, cudaMemcpyHostToDevice);
  int n = lv.size(); int* dl; cudaMalloc(&dl, n*4); cudaMemcpy(dl, lv.data(), n*4, cudaMemcpyHostToDevice);
  int* dh; cudaMalloc(&dh, (n-1)*4); cudaMemset(dh, 0, (n-1)*4);
  NppiSize roi{W,H}; size_t bytes=0; auto c = ctx();
  nppiHistogramRangeGetBufferSize_16u_C1R_Ctx(roi, n, &bytes, c);
  unsigned char* buf; cudaMalloc(&buf, bytes+1);
  NppStatus s = nppiHistogramRange_16u_C1R_Ctx(d, (int)pitch, roi, dh, dl, n, buf, c);
  std::vector<int> h(n-1); cudaMemcpy(h.data(), dh, (n-1)*4, cudaMemcpyDeviceToHost);
  printf("%s: %dx%d levels=%d status=%d expect 0:%ld 65534:%ld | first bin %d, last bins: ", what, W, H, n, (int)s, c0, c1, h[0]);
  for (int i = std::max(0,n-4); i < n-1; i++) printf("[%d,%d)=%d ", lv[i], lv[i+1], h[i]);
  printf("\n");
  cudaFree(d); cudaFree(dl); cudaFree(dh); cudaFree(buf);
}
int main() {
  std::vector<int> t; for (int i=0;i<=1024;i++) t.push_back((int)((long long)i*65535/1024 + (((long long)i*65535)%1024?1:0)));
  std::vector<int> ev(1025); nppiEvenLevelsHost_32s(ev.data(), 1025, 0, 65535);
  int diff=0; for(int i=0;i<=1024;i++) if(ev[i]!=t[i]) diff++;
  printf("even levels differ from ceil thresholds at %d of 1025; ev[1]=%d t[1]=%d ev[1023]=%d t[1023]=%d\n", diff, ev[1], t[1], ev[1023], t[1023]);
  run(64,64,t,"1025 levels ceil");
  run(3840,2160,t,"1025 levels ceil");
  run(64,64,{65472,65535,65536},"3 levels");
  run(64,64,{0,65472,65535},"3 levels");
  run(64,64,{0,32768,65534,65535,65536},"5 levels");
  run(64,64,{65000,65534,65535},"tight");
  std::vector<int> t2(t.begin(), t.begin()+1024); t2.push_back(65535); t2.push_back(65536);
  run(64,64,t2,"1026 levels");
  std::vector<int> t3(t.begin()+900, t.end()); run(64,64,t3,"tail 125 levels");
  std::vector<int> t4(t.begin()+1020, t.end()); run(64,64,t4,"tail 5 levels");
  return 0;
}
