package io.zkv.waltz;

/**
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed 64-bit
 * pseudorandom function of a short input. WALTZ signs each log part's header with the key of the
 * zone lease it is appended to ({@code docs/formats/zkv-wal.md}), so that nobody who does not hold
 * that key, a user's value above all, can write bytes that recovery takes for a part.
 */
final class SipHash {
  private long v0;
  private long v1;
  private long v2;
  private long v3;

  private SipHash(long k0, long k1) {
    v0 = 0x736f6d6570736575L ^ k0;
    v1 = 0x646f72616e646f6dL ^ k1;
    v2 = 0x6c7967656e657261L ^ k0;
    v3 = 0x7465646279746573L ^ k1;
  }

  /** SipHash-2-4 of {@code len} bytes of {@code in} from {@code off} under the key (k0, k1). */
  static long hash(long k0, long k1, byte[] in, int off, int len) {
    SipHash s = new SipHash(k0, k1);
    int end = off + len - len % 8;
    for (int i = off; i < end; i += 8) {
      s.absorb(le64(in, i));
    }
    long last = ((long) len & 0xff) << 56;
    for (int i = 0; i < len % 8; i++) {
      last |= (in[end + i] & 0xffL) << (8 * i);
    }
    s.absorb(last);
    s.v2 ^= 0xff;
    s.rounds(4);
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
  }

  /** One message word, two compression rounds. */
  private void absorb(long m) {
    v3 ^= m;
    rounds(2);
    v0 ^= m;
  }

  private void rounds(int n) {
    for (int r = 0; r < n; r++) {
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13) ^ v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16) ^ v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21) ^ v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17) ^ v2;
      v2 = Long.rotateLeft(v2, 32);
    }
  }

  private static long le64(byte[] b, int i) {
    long v = 0;
    for (int k = 7; k >= 0; k--) {
      v = (v << 8) | (b[i + k] & 0xffL);
    }
    return v;
  }
}
