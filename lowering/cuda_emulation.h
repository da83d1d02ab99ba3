// xtir's CUDA emulation: the CUDA C that xtir emits, compiled by the host C++ compiler.
//
// Thread blocks run one after another. The threads of a block are real threads (pthreads),
// but they take turns: one runs at a time, from one __syncthreads() to the next (or to its
// end), then hands over to the next thread. Each stretch between barriers is run by the
// threads of the block in an order that alternates between last-to-first and first-to-last
// (by barrier generation and block), so a kernel in which one thread reads what another
// writes without a barrier in between reads a stale value in one of the two orders, every
// time: a missing barrier makes results wrong deterministically instead of now and then.
// __shared__ arrays are function statics: one copy for the block that is running.
#pragma once

#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

struct uint3 { unsigned x, y, z; };
struct alignas(16) float4 { float x, y, z, w; };

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

namespace xtir_emu {

enum State { RUNNING, AT_BARRIER, EXITED };

struct Launch {
  unsigned threads = 0, blocks = 0;
  uint3 grid{}, block{};
  std::vector<sem_t> turn;  // one per thread: posted when it is that thread's turn
  std::vector<State> state;
  std::vector<unsigned> order;
  size_t pos = 0;
  unsigned generation = 0, current_block = 0;
  sem_t done;
  void (*body)(void*) = nullptr;
  void* context = nullptr;
};

inline Launch* running = nullptr;
inline std::mutex one_launch_at_a_time;  // __shared__ statics are per kernel, not per launch
inline thread_local unsigned thread_rank = 0;
inline thread_local uint3 thread_idx{}, block_idx{};

inline uint3 unflatten(unsigned k, uint3 dims) {
  return uint3{k % dims.x, k / dims.x % dims.y, k / (dims.x * dims.y)};
}

// Last-to-first on even turns, first-to-last on odd ones.
inline void arrange(std::vector<unsigned>& order, unsigned turn) {
  if (turn % 2 == 0) std::reverse(order.begin(), order.end());
}

// The running thread ends its stretch (at a barrier or at its end) and hands over.
inline void hand_over(State state) {
  Launch& L = *running;
  L.state[thread_rank] = state;
  if (++L.pos < L.order.size()) {
    sem_post(&L.turn[L.order[L.pos]]);
    return;
  }
  ++L.generation;
  std::vector<unsigned> next;
  for (unsigned t = 0; t < L.threads; ++t)
    if (L.state[t] == AT_BARRIER) next.push_back(t);
  if (next.empty()) {  // every thread has finished the block
    if (++L.current_block == L.blocks) {
      sem_post(&L.done);
      return;
    }
    for (unsigned t = 0; t < L.threads; ++t) next.push_back(t);
  }
  arrange(next, L.generation + L.current_block);
  for (unsigned t : next) L.state[t] = RUNNING;
  L.order = std::move(next);
  L.pos = 0;
  sem_post(&L.turn[L.order[0]]);
}

inline void syncthreads() {
  hand_over(AT_BARRIER);
  sem_wait(&running->turn[thread_rank]);
}

inline void* worker(void* arg) {
  Launch& L = *running;
  thread_rank = static_cast<unsigned>(reinterpret_cast<size_t>(arg));
  thread_idx = unflatten(thread_rank, L.block);
  for (unsigned b = 0; b < L.blocks; ++b) {
    sem_wait(&L.turn[thread_rank]);
    block_idx = unflatten(b, L.grid);
    L.body(L.context);
    hand_over(EXITED);
  }
  return nullptr;
}

template <typename F>
void trampoline(void* f) { (*static_cast<F*>(f))(); }

template <typename... P, size_t... I>
void call(void (*kernel)(P...), void** args, std::index_sequence<I...>) {
  kernel(static_cast<P>(args[I])...);
}

// Runs kernel<<<grid, block>>>(args...); 0 on success, else the number of threads started.
template <typename... P>
int launch(void (*kernel)(P...), void** args, const unsigned* dims) {
  std::lock_guard<std::mutex> lock(one_launch_at_a_time);
  Launch L;
  L.grid = uint3{dims[0], dims[1], dims[2]};
  L.block = uint3{dims[3], dims[4], dims[5]};
  L.blocks = dims[0] * dims[1] * dims[2];
  L.threads = dims[3] * dims[4] * dims[5];
  L.turn.resize(L.threads);
  L.state.assign(L.threads, RUNNING);
  for (auto& s : L.turn) sem_init(&s, 0, 0);
  sem_init(&L.done, 0, 0);
  auto body = [&] { call(kernel, args, std::index_sequence_for<P...>{}); };
  L.body = trampoline<decltype(body)>;
  L.context = &body;
  for (unsigned t = 0; t < L.threads; ++t) L.order.push_back(t);
  arrange(L.order, 0);
  running = &L;
  std::vector<pthread_t> threads(L.threads);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  unsigned started = 0;
  for (; started < L.threads; ++started)
    if (pthread_create(&threads[started], &attr, worker, reinterpret_cast<void*>(size_t{started})) != 0) break;
  pthread_attr_destroy(&attr);
  int status = 0;
  if (started < L.threads) {
    status = static_cast<int>(started) + 1;
    for (unsigned t = 0; t < started; ++t) pthread_cancel(threads[t]);
  } else {
    sem_post(&L.turn[L.order[0]]);
    sem_wait(&L.done);
  }
  for (unsigned t = 0; t < started; ++t) pthread_join(threads[t], nullptr);
  for (auto& s : L.turn) sem_destroy(&s);
  sem_destroy(&L.done);
  running = nullptr;
  return status;
}

}  // namespace xtir_emu

#define threadIdx (xtir_emu::thread_idx)
#define blockIdx (xtir_emu::block_idx)
#define blockDim (xtir_emu::running->block)
#define gridDim (xtir_emu::running->grid)
#define __syncthreads() xtir_emu::syncthreads()

namespace xtir_emu {
template <typename To, typename From>
inline To bits_as(From value) {
  static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the width");
  To to;
  memcpy(&to, &value, sizeof to);
  return to;
}
}  // namespace xtir_emu

// cuda_fp16.h's __half, as much of it as xtir emits: 16 bits, `+ - * /` each rounded to half
// (through float: exact for these, as f32 has more than twice f16's precision), compares, and the
// conversions. _Float16's conversions round to nearest even, as __float2half does.
struct __half {
  _Float16 value;
};
inline __half __float2half(float f) { return __half{static_cast<_Float16>(f)}; }
inline __half __double2half(double d) { return __half{static_cast<_Float16>(d)}; }
inline float __half2float(__half h) { return static_cast<float>(h.value); }
inline __half operator+(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
inline __half operator-(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
inline __half operator*(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
inline __half operator/(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
inline __half operator-(__half a) { return __half{static_cast<_Float16>(-a.value)}; }
inline bool operator==(__half a, __half b) { return __half2float(a) == __half2float(b); }
inline bool operator!=(__half a, __half b) { return __half2float(a) != __half2float(b); }
inline bool operator<(__half a, __half b) { return __half2float(a) < __half2float(b); }
inline bool operator<=(__half a, __half b) { return __half2float(a) <= __half2float(b); }
inline bool operator>(__half a, __half b) { return __half2float(a) > __half2float(b); }
inline bool operator>=(__half a, __half b) { return __half2float(a) >= __half2float(b); }

inline float __int_as_float(int bits) { return xtir_emu::bits_as<float>(bits); }
inline int __float_as_int(float value) { return xtir_emu::bits_as<int>(value); }
inline double __longlong_as_double(long long bits) { return xtir_emu::bits_as<double>(bits); }
inline long long __double_as_longlong(double value) { return xtir_emu::bits_as<long long>(value); }
inline __half __short_as_half(short bits) { return xtir_emu::bits_as<__half>(bits); }
inline short __half_as_short(__half value) { return xtir_emu::bits_as<short>(value); }
inline __half __ushort_as_half(unsigned short bits) { return xtir_emu::bits_as<__half>(bits); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }

// The error channel's first-report-wins flag (threads take turns, but a real CAS costs nothing here).
inline unsigned atomicCAS(unsigned* address, unsigned compare, unsigned value) {
  __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;
}
