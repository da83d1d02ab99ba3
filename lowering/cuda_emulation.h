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
//
// The race detector (compiled where XTIR_RACECHECK is defined, for a source emitted with
// racecheck=True, lowering/cuda_emit.py: the default build compiles and runs as without it): each
// __shared__ access goes through XTIR_SHARED, which keeps, per element, who wrote and who read it in the
// current barrier interval (the generation) of the current block. Threads take turns, so the
// check needs no lock and sees every access whatever the order: a write and another thread's
// read or write of the same element between two barriers is a race (as compute-sanitizer's
// racecheck says), and so is a read of an element no thread of the block has written (on a GPU
// it is undefined; here it would be an earlier block's value). Global memory (the parameters the
// kernel writes, through XTIR_GLOBAL: one it only reads cannot race) is checked alike, but across blocks too: blocks run one after
// another here and at once on a GPU, so a write and another block's read or write of the same element
// in the launch is a race whatever the order (each element remembers one writer and one reader of the
// earlier blocks, and this block's accesses as for __shared__; a read of an element nobody wrote is
// the input). The first report is kept and the launch runs to its end; the launcher's
// xtir_race_report() gives it.
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
#ifdef XTIR_RACECHECK
#include <string>
#include <unordered_map>
#endif

struct uint3 { unsigned x, y, z; };
struct alignas(16) float4 { float x, y, z, w; };
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }

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

#ifdef XTIR_RACECHECK
// What a thread did last to an element in the current barrier interval.
struct Touch {
  int thread = -1;
  int line = 0;
  unsigned block = 0;  // for global memory: the earlier block's thread it was
};

struct Shadow {
  unsigned launch = 0, block = 0, generation = 0;
  bool written = false;        // by some thread of this block, in any interval
  Touch writer, reader;        // in this interval (reader: any one reader other than the writer)
  bool other_readers = false;  // more than one thread has read it in this interval
};

inline std::unordered_map<const void*, Shadow> shadows;

// A global element's record in the running launch: this block's accesses as a __shared__ element's
// (the barriers of a block order its global accesses too), and one writer and one reader of the
// earlier blocks, which no barrier orders.
struct GlobalShadow {
  Shadow here;
  Touch block_writer, block_reader;      // this block's last, in any interval
  Touch earlier_writer, earlier_reader;  // a thread of an earlier block's
};

// Of the running launch (arrays move), by address: about 130 bytes per element touched with the map's
// node and bucket (2 GB for a 4096x4096 output), so racecheck runs at small sizes.
inline std::unordered_map<const void*, GlobalShadow> global_shadows;
inline unsigned launches = 0;  // launches so far: the records of earlier ones are stale
// The first report of the running launch: of a race, else of an unwritten read (a race found
// later explains such a read better: a missing barrier lets the reader go first).
inline std::string race_report, unwritten_report;

inline void forget_earlier_launches() {
  ++launches;
  global_shadows.clear();
  race_report.clear();
  unwritten_report.clear();
}

inline const std::string& first_report() { return race_report.empty() ? unwritten_report : race_report; }

inline std::string thread_name(int rank) {
  uint3 t = unflatten(static_cast<unsigned>(rank), running->block);
  return "thread (" + std::to_string(t.x) + ", " + std::to_string(t.y) + ", " + std::to_string(t.z) + ")";
}

inline std::string block_name(unsigned block) {
  uint3 b = unflatten(block, running->grid);
  return "block (" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " + std::to_string(b.z) + ")";
}

inline void report(std::string& first, const char* kernel, const char* space, const char* buffer, long element,
                   const std::string& what) {
  if (!first.empty()) return;
  first = std::string("kernel '") + kernel + "', " + space + " '" + buffer + "' element " + std::to_string(element) +
          ", " + block_name(running->current_block) + ": " + what;
}

// The record of `address` for the current interval of the running block.
inline Shadow& shadow_of(const void* address) {
  Launch& L = *running;
  Shadow& s = shadows[address];
  if (s.launch != launches || s.block != L.current_block) s = Shadow{launches, L.current_block, L.generation};
  if (s.generation != L.generation) {
    s.generation = L.generation;
    s.writer = s.reader = Touch{};
    s.other_readers = false;
  }
  return s;
}

inline void check_read(Shadow& s, const char* space, const char* kernel, const char* buffer, long element, int line) {
  int me = static_cast<int>(thread_rank);
  if (!s.written) {
    report(unwritten_report, kernel, space, buffer, element, thread_name(me) + " reads it (line " + std::to_string(line) +
           ") before any thread of the block has written it (undefined on a GPU: no earlier write and barrier)");
  } else if (s.writer.thread >= 0 && s.writer.thread != me) {
    report(race_report, kernel, space, buffer, element, thread_name(me) + " reads it (line " + std::to_string(line) + ") after " +
                thread_name(s.writer.thread) + " wrote it (line " + std::to_string(s.writer.line) +
                ") with no __syncthreads() in between (read after write)");
  }
  if (s.reader.thread < 0 || s.reader.thread == me) {
    s.reader = Touch{me, line};
  } else {
    s.other_readers = true;
  }
}

inline void check_write(Shadow& s, const char* space, const char* kernel, const char* buffer, long element, int line) {
  int me = static_cast<int>(thread_rank);
  std::string at = thread_name(me) + " writes it (line " + std::to_string(line) + ") after ";
  if (s.writer.thread >= 0 && s.writer.thread != me) {
    report(race_report, kernel, space, buffer, element, at + thread_name(s.writer.thread) + " wrote it (line " +
                std::to_string(s.writer.line) + ") with no __syncthreads() in between (write after write)");
  } else if (s.reader.thread >= 0 && (s.reader.thread != me || s.other_readers)) {
    Touch other = s.reader.thread != me ? s.reader : Touch{-1, 0};
    report(race_report, kernel, space, buffer, element, at + (other.thread >= 0 ? thread_name(other.thread) + " read it (line " +
                std::to_string(other.line) + ")" : std::string("another thread read it")) +
                " with no __syncthreads() in between (write after read)");
  }
  s.written = true;
  s.writer = Touch{me, line};
}

// `base[offset]`, after checking the access of `count` elements from there.
template <typename T>
T& shared_access(T* base, long offset, int count, bool write, const char* buffer, const char* kernel, int line) {
  for (int k = 0; k < count; ++k) {
    Shadow& s = shadow_of(base + offset + k);
    if (write) {
      check_write(s, "__shared__", kernel, buffer, offset + k, line);
    } else {
      check_read(s, "__shared__", kernel, buffer, offset + k, line);
    }
  }
  return base[offset];
}

#define XTIR_SHARED(buffer, offset, count, write) \
  (xtir_emu::shared_access(buffer, (offset), count, write, #buffer, __func__, __LINE__))

inline GlobalShadow& global_shadow_of(const void* address) {
  Launch& L = *running;
  GlobalShadow& g = global_shadows[address];  // a new one: of block 0, generation 0
  if (g.here.block != L.current_block) {  // a later block: this one's accesses become the earlier ones
    if (g.block_writer.thread >= 0) g.earlier_writer = g.block_writer;
    if (g.block_reader.thread >= 0) g.earlier_reader = g.block_reader;
    g.block_writer = g.block_reader = Touch{};
    g.here = Shadow{launches, L.current_block, L.generation};
  }
  if (g.here.generation != L.generation) {
    g.here.generation = L.generation;
    g.here.writer = g.here.reader = Touch{};
    g.here.other_readers = false;
  }
  return g;
}

// Another block's write of the element races with any access, its read with a write.
inline void check_global(GlobalShadow& g, bool write, const char* kernel, const char* buffer, long element, int line) {
  const Touch& earlier = g.earlier_writer.thread >= 0 || !write ? g.earlier_writer : g.earlier_reader;
  if (earlier.thread >= 0) {
    bool wrote = &earlier == &g.earlier_writer;
    report(race_report, kernel, "global", buffer, element,
           thread_name(static_cast<int>(thread_rank)) + (write ? " writes" : " reads") + " it (line " +
               std::to_string(line) + ") after " + thread_name(earlier.thread) + " of " + block_name(earlier.block) +
               (wrote ? " wrote" : " read") + " it (line " + std::to_string(earlier.line) +
               "): the blocks of a launch run at once on a GPU, in no order (" + (write ? "write" : "read") +
               " after " + (wrote ? "write" : "read") + " across blocks)");
  }
  g.here.written = true;  // global memory holds the input: reading an element no thread wrote is no error
  Touch mine{static_cast<int>(thread_rank), line, running->current_block};
  if (write) {
    check_write(g.here, "global", kernel, buffer, element, line);
    g.block_writer = mine;
  } else {
    check_read(g.here, "global", kernel, buffer, element, line);
    g.block_reader = mine;
  }
}

template <typename T>
T& global_access(T* base, long offset, int count, bool write, const char* buffer, const char* kernel, int line) {
  for (int k = 0; k < count; ++k) check_global(global_shadow_of(base + offset + k), write, kernel, buffer, offset + k, line);
  return base[offset];
}

#define XTIR_GLOBAL(buffer, offset, count, write) \
  (xtir_emu::global_access(buffer, (offset), count, write, #buffer, __func__, __LINE__))
#endif  // XTIR_RACECHECK

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
#ifdef XTIR_RACECHECK
  forget_earlier_launches();
#endif
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
