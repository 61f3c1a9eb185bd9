package io.zkv.placement;

/**
 * The open and active zone tokens of the I/O zones: how many are in use and the limits they must
 * stay within. ZNS devices limit how many zones may be open (being written) and active (open or
 * closed, i.e. partly written) at once; ZenFS hands these out as tokens ({@code
 * WaitForOpenIOZoneToken}, {@code GetActiveIOZoneTokenIfAvailable}) and keeps {@link #reserved} of
 * each back for its metadata log and for GC migration.
 *
 * @param maxOpenIo open-token limit for file writes: device max open minus {@code reserved}, or the
 *     zone count if the device has no limit
 * @param maxActiveIo active-token limit for file writes, likewise
 * @param openIo open tokens in use: I/O zones held by a writer
 * @param activeIo active tokens in use: I/O zones OPEN or CLOSED, or held by a writer
 * @param reserved tokens of each kind kept back from the device limits (ZenFS: 2)
 */
public record ZoneTokens(int maxOpenIo, int maxActiveIo, int openIo, int activeIo, int reserved) {

  /** Checks that counts and limits are sane. */
  public ZoneTokens {
    if (maxOpenIo < 1 || maxActiveIo < 1) {
      throw new IllegalArgumentException(
          "I/O token limits must be >= 1, not open " + maxOpenIo + " / active " + maxActiveIo);
    }
    if (openIo < 0 || activeIo < 0 || reserved < 0) {
      throw new IllegalArgumentException(
          "token counts must be >= 0: open "
              + openIo
              + ", active "
              + activeIo
              + ", reserved "
              + reserved);
    }
  }

  /** True if an active token is free ({@code GetActiveIOZoneTokenIfAvailable} would succeed). */
  public boolean activeAvailable() {
    return activeIo < maxActiveIo;
  }
}
