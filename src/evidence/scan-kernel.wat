;; The sanitiser's candidate scan as WebAssembly: the same loop as scanCandidatesJs in candidate-scan.ts, and
;; the same candidates, several times faster (see `npm run bench`). scripts/generate-scan-kernel.mjs assembles
;; this file into scan-kernel.generated.ts; a test fails when the two differ.
;;
;; Memory (laid out by candidate-scan.ts): bytes 0..255 hold one class byte per byte value (bit 1: a control
;; character, bit 2: a quote), then the gram bit set, then the text's low bytes (with at least 32 bytes of the
;; text before `at` and 3 after `to`), then the output.
;;
;; scan(at, to, table, shift, runSamples, out, bias) reads the 4-byte word at every 4th address in [at, to)
;; and writes two i32 per candidate at `out`:
;;   - (address + bias, word) when both of the word's bits are set in the Bloom filter at `table` (bits
;;     numbered (word * 0x9e3779b1) >>> shift and (word * 0xc2b2ae35) >>> shift);
;;   - ((address + bias) | 0x80000000, 0) when this word completes `runSamples` consecutive words that hold
;;     no byte below "+" and none of 0x7f or above, and a quote stands in the 6 bytes before the run's first
;;     word: maybe a long quoted base64 value (2^31 - 1 turns this off).
;; It returns the number of candidates. The globals carry state from one segment of a text to the next:
;; `run` (the current run of such words) and `control` (bit 1 set once any control character was seen).
;;
;; controls(at, to, out, bias) writes address + bias (one i32) for every 16-byte block in [at, to) that holds a
;; control character (below 0x20 except tab and newline, or 0x7f to 0x9f), and returns how many it wrote: the
;; only places the sanitiser must look at to strip escape sequences.
(module
  (memory (export "memory") 1)
  (global $run (export "run") (mut i32) (i32.const 0))
  (global $control (export "control") (mut i32) (i32.const 0))

  ;; The classes of a word's four bytes, ORed.
  (func $classes (param $word i32) (result i32)
    (i32.or
      (i32.or
        (i32.load8_u (i32.and (local.get $word) (i32.const 0xff)))
        (i32.load8_u (i32.and (i32.shr_u (local.get $word) (i32.const 8)) (i32.const 0xff))))
      (i32.or
        (i32.load8_u (i32.and (i32.shr_u (local.get $word) (i32.const 16)) (i32.const 0xff)))
        (i32.load8_u (i32.shr_u (local.get $word) (i32.const 24))))))

  ;; Is there a quote among the 6 bytes before `first`?
  (func $quoteBefore (param $first i32) (result i32)
    (i32.and
      (i32.or
        (call $classes (i32.load (i32.sub (local.get $first) (i32.const 4))))
        (i32.or
          (i32.load8_u (i32.load8_u (i32.sub (local.get $first) (i32.const 5))))
          (i32.load8_u (i32.load8_u (i32.sub (local.get $first) (i32.const 6))))))
      (i32.const 2)))

  ;; Writes a run-end candidate for the word at `at` when a quote stands before the run; returns the new `next`.
  (func $emitRun (param $at i32) (param $runSamples i32) (param $bias i32) (param $next i32) (result i32)
    (if (result i32)
      (call $quoteBefore (i32.sub (local.get $at) (i32.shl (i32.sub (local.get $runSamples) (i32.const 1)) (i32.const 2))))
      (then
        (i32.store (local.get $next) (i32.or (i32.add (local.get $at) (local.get $bias)) (i32.const 0x80000000)))
        (i32.store offset=4 (local.get $next) (i32.const 0))
        (i32.add (local.get $next) (i32.const 8)))
      (else (local.get $next))))

  ;; The word at `at` has its first Bloom bit set: checks the second and writes a gram candidate.
  (func $emitGram (param $at i32) (param $table i32) (param $shift i32) (param $bias i32) (param $next i32)
    (result i32)
    (local $word i32) (local $bit i32)
    (local.set $word (i32.load (local.get $at)))
    (local.set $bit (i32.shr_u (i32.mul (local.get $word) (i32.const 0xc2b2ae35)) (local.get $shift)))
    (if (result i32)
      (i32.and
        (i32.load (i32.add (local.get $table) (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
        (i32.shl (i32.const 1) (local.get $bit)))
      (then
        (i32.store (local.get $next) (i32.add (local.get $at) (local.get $bias)))
        (i32.store offset=4 (local.get $next) (local.get $word))
        (i32.add (local.get $next) (i32.const 8)))
      (else (local.get $next))))

  (func (export "scan")
    (param $at i32) (param $to i32) (param $table i32) (param $shift i32) (param $runSamples i32)
    (param $out i32) (param $bias i32)
    (result i32)
    (local $word i32) (local $high i32) (local $bit i32) (local $next i32) (local $run i32) (local $control i32)
    (local $bytes v128) (local $hashes v128) (local $breaks i32) (local $runWord i32)
    (local.set $next (local.get $out))
    (local.set $run (global.get $run))
    (local.set $control (global.get $control))
    ;; Four words at a time with SIMD: the byte tests for a whole vector, then each word's first Bloom bit.
    (block $vectorsDone
      (loop $vector
        (br_if $vectorsDone (i32.gt_u (i32.add (local.get $at) (i32.const 16)) (local.get $to)))
        (local.set $bytes (v128.load (local.get $at)))
        ;; Control characters: the test of $controlBytes, written out (V8 does not inline WebAssembly calls here).
        (local.set $control
          (i32.or (local.get $control)
            (v128.any_true
              (v128.or
                (v128.andnot
                  (i8x16.lt_u (local.get $bytes) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
                  (v128.or
                    (i8x16.eq (local.get $bytes) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))
                    (i8x16.eq (local.get $bytes) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))
                (v128.and
                  (i8x16.gt_u (local.get $bytes) (v128.const i8x16 126 126 126 126 126 126 126 126 126 126 126 126 126 126 126 126))
                  (i8x16.lt_u (local.get $bytes) (v128.const i8x16 160 160 160 160 160 160 160 160 160 160 160 160 160 160 160 160)))))))
        ;; Words that end a run (a byte below "+" or above 0x7e), one bit each.
        (local.set $breaks
          (i32.xor (i32.const 15)
            (i32x4.bitmask
              (i32x4.eq
                (v128.or
                  (i8x16.lt_u (local.get $bytes) (v128.const i8x16 43 43 43 43 43 43 43 43 43 43 43 43 43 43 43 43))
                  (i8x16.gt_u (local.get $bytes) (v128.const i8x16 126 126 126 126 126 126 126 126 126 126 126 126 126 126 126 126)))
                (v128.const i32x4 0 0 0 0)))))
        ;; A run can only reach runSamples (at least 4) in the words before the first break: which word, if any.
        (local.set $runWord
          (select
            (i32.sub (i32.sub (local.get $runSamples) (local.get $run)) (i32.const 1))
            (i32.const -1)
            (i32.and
              (i32.lt_u (local.get $run) (local.get $runSamples))
              (i32.ge_u
                (i32.add (local.get $run) (i32.ctz (i32.or (local.get $breaks) (i32.const 16))))
                (local.get $runSamples)))))
        (local.set $run
          (select
            (i32.add (local.get $run) (i32.const 4))
            (i32.sub (i32.clz (local.get $breaks)) (i32.const 28))
            (i32.eqz (local.get $breaks))))
        (local.set $hashes
          (i32x4.shr_u
            (i32x4.mul (local.get $bytes) (v128.const i32x4 0x9e3779b1 0x9e3779b1 0x9e3779b1 0x9e3779b1))
            (local.get $shift)))
        (if (i32.eq (local.get $runWord) (i32.const 0))
          (then (local.set $next (call $emitRun (i32.add (local.get $at) (i32.const 0)) (local.get $runSamples) (local.get $bias) (local.get $next)))))
        (local.set $bit (i32x4.extract_lane 0 (local.get $hashes)))
        (if (i32.and
              (i32.load (i32.add (local.get $table) (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
              (i32.shl (i32.const 1) (local.get $bit)))
          (then (local.set $next (call $emitGram (i32.add (local.get $at) (i32.const 0)) (local.get $table) (local.get $shift) (local.get $bias) (local.get $next)))))
        (if (i32.eq (local.get $runWord) (i32.const 1))
          (then (local.set $next (call $emitRun (i32.add (local.get $at) (i32.const 4)) (local.get $runSamples) (local.get $bias) (local.get $next)))))
        (local.set $bit (i32x4.extract_lane 1 (local.get $hashes)))
        (if (i32.and
              (i32.load (i32.add (local.get $table) (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
              (i32.shl (i32.const 1) (local.get $bit)))
          (then (local.set $next (call $emitGram (i32.add (local.get $at) (i32.const 4)) (local.get $table) (local.get $shift) (local.get $bias) (local.get $next)))))
        (if (i32.eq (local.get $runWord) (i32.const 2))
          (then (local.set $next (call $emitRun (i32.add (local.get $at) (i32.const 8)) (local.get $runSamples) (local.get $bias) (local.get $next)))))
        (local.set $bit (i32x4.extract_lane 2 (local.get $hashes)))
        (if (i32.and
              (i32.load (i32.add (local.get $table) (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
              (i32.shl (i32.const 1) (local.get $bit)))
          (then (local.set $next (call $emitGram (i32.add (local.get $at) (i32.const 8)) (local.get $table) (local.get $shift) (local.get $bias) (local.get $next)))))
        (if (i32.eq (local.get $runWord) (i32.const 3))
          (then (local.set $next (call $emitRun (i32.add (local.get $at) (i32.const 12)) (local.get $runSamples) (local.get $bias) (local.get $next)))))
        (local.set $bit (i32x4.extract_lane 3 (local.get $hashes)))
        (if (i32.and
              (i32.load (i32.add (local.get $table) (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
              (i32.shl (i32.const 1) (local.get $bit)))
          (then (local.set $next (call $emitGram (i32.add (local.get $at) (i32.const 12)) (local.get $table) (local.get $shift) (local.get $bias) (local.get $next)))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $vector)))
    ;; The last words one at a time.
    (block $done
      (loop $sample
        (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
        (local.set $word (i32.load (local.get $at)))
        ;; Exact per-byte word tests: the high bit of each byte of 0x7f or above ...
        (local.set $high
          (i32.and
            (i32.or (i32.add (i32.and (local.get $word) (i32.const 0x7f7f7f7f)) (i32.const 0x01010101))
              (local.get $word))
            (i32.const 0x80808080)))
        ;; ... and of each byte below "+" (space, quotes, punctuation, controls) ends a run.
        (local.set $run
          (select
            (i32.const 0)
            (i32.add (local.get $run) (i32.const 1))
            (i32.or (local.get $high)
              (i32.and
                (i32.and (i32.sub (local.get $word) (i32.const 0x2b2b2b2b)) (i32.xor (local.get $word) (i32.const -1)))
                (i32.const 0x80808080)))))
        (if (i32.eq (local.get $run) (local.get $runSamples))
          (then
            (if (call $quoteBefore
                  (i32.sub (local.get $at) (i32.shl (i32.sub (local.get $runSamples) (i32.const 1)) (i32.const 2))))
              (then
                (i32.store (local.get $next)
                  (i32.or (i32.add (local.get $at) (local.get $bias)) (i32.const 0x80000000)))
                (i32.store offset=4 (local.get $next) (i32.const 0))
                (local.set $next (i32.add (local.get $next) (i32.const 8)))))))
        ;; A byte below 0x20 or of 0x7f and above (newline, tab, non-ASCII, control): the class table decides.
        (if (i32.or (local.get $high)
              (i32.and
                (i32.and (i32.sub (local.get $word) (i32.const 0x20202020)) (i32.xor (local.get $word) (i32.const -1)))
                (i32.const 0x80808080)))
          (then (local.set $control (i32.or (local.get $control) (call $classes (local.get $word))))))
        ;; The Bloom filter (written out twice: V8 does not inline WebAssembly calls here).
        (local.set $bit (i32.shr_u (i32.mul (local.get $word) (i32.const 0x9e3779b1)) (local.get $shift)))
        (if (i32.and
              (i32.load (i32.add (local.get $table) (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
              (i32.shl (i32.const 1) (local.get $bit)))
          (then
            (local.set $bit (i32.shr_u (i32.mul (local.get $word) (i32.const 0xc2b2ae35)) (local.get $shift)))
            (if (i32.and
                  (i32.load (i32.add (local.get $table) (i32.shl (i32.shr_u (local.get $bit) (i32.const 5)) (i32.const 2))))
                  (i32.shl (i32.const 1) (local.get $bit)))
              (then
                (i32.store (local.get $next) (i32.add (local.get $at) (local.get $bias)))
                (i32.store offset=4 (local.get $next) (local.get $word))
                (local.set $next (i32.add (local.get $next) (i32.const 8)))))))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $sample)))
    (global.set $run (local.get $run))
    (global.set $control (i32.and (local.get $control) (i32.const 1)))
    (i32.shr_u (i32.sub (local.get $next) (local.get $out)) (i32.const 3)))
  ;; Which bytes of a 16-byte block are control characters (below 0x20 except tab and newline, 0x7f to 0x9f).
  (func $controlBytes (param $bytes v128) (result v128)
    (v128.or
      (v128.andnot
        (i8x16.lt_u (local.get $bytes) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
        (v128.or
          (i8x16.eq (local.get $bytes) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))
          (i8x16.eq (local.get $bytes) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))
      (v128.and
        (i8x16.gt_u (local.get $bytes) (v128.const i8x16 126 126 126 126 126 126 126 126 126 126 126 126 126 126 126 126))
        (i8x16.lt_u (local.get $bytes) (v128.const i8x16 160 160 160 160 160 160 160 160 160 160 160 160 160 160 160 160)))))

  (func (export "controls") (param $at i32) (param $to i32) (param $out i32) (param $bias i32) (result i32)
    (local $next i32)
    (local.set $next (local.get $out))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
        (if (v128.any_true (call $controlBytes (v128.load (local.get $at))))
          (then
            (i32.store (local.get $next) (i32.add (local.get $at) (local.get $bias)))
            (local.set $next (i32.add (local.get $next) (i32.const 4)))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $block)))
    (i32.shr_u (i32.sub (local.get $next) (local.get $out)) (i32.const 2)))
)
