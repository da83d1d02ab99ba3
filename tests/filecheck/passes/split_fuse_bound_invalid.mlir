// RUN: not xtir-opt %s -p 'bind{loop=i thread="blockIdx.x"},split{loop=i factors=2,-1}' 2>&1 | filecheck %s --check-prefix=SPLIT
// RUN: not xtir-opt %s -p 'bind{loop=j thread="threadIdx.x"},fuse{loops=i,j}' 2>&1 | filecheck %s --check-prefix=FUSE
// split and fuse refuse a loop bound to a thread, as TVM's do: the new loops would be serial
// and the binding the schedule asked for would be gone. Split and fuse first, then bind.

// SPLIT: error: 'block.for' op split: loop "i" has thread binding "blockIdx.x"; split and fuse take loops without them: split and fuse first, then bind or annotate (TVM: The primitive can't be applied because the loop has annotation or thread binding)
// FUSE: error: 'block.for' op fuse: loop "j" has thread binding "threadIdx.x"; split and fuse take loops without them

func.func @main(%A: memref<8x16xf32>, %B: memref<8x16xf32>) {
  block.for %i = 0 to 8 "i" {
    block.for %j = 0 to 16 "j" {
      block.block "B"(%vi = spatial(8, %i), %vj = spatial(16, %j)) {
        %a = block.load %A[%vi, %vj] : memref<8x16xf32>
        block.store %a, %B[%vi, %vj] : memref<8x16xf32>
      }
    }
  }
  func.return
}
