package io.zkv.placement;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Everything the file system knows about the file that needs a zone, as typed hints. Only {@link
 * #fileId}, {@link #kind}, {@link #lifetime} and {@link #purpose} are always present; the rest is
 * filled where the caller knows it (the native library learns level, job and key range from
 * RocksDB's events, by a native listener that never calls into Java, and from the live-files
 * metadata, before the file's first write: docs/zone-fs.md, "LSM hints").
 *
 * <p>Which policy uses what:
 *
 * <ul>
 *   <li>LIZA (ZenFS): {@code kind} (is it the WAL), {@code lifetime}, and for {@code GC_MIGRATION}
 *       {@code expectedSize} as the extent length that must fit.
 *   <li>CAZA: {@code level} is the target level L of the new SST; {@code keyRange} its key range,
 *       or, when the output range is not yet known, the union of the ranges of {@code
 *       compactionInputs} (zkv's file system gives that union, from the output's own first key
 *       where its first write-out shows it); the SSTs of level L+1 that overlap it are found
 *       through {@link ZoneTableView#files()} and their zones through {@link
 *       ZoneTableView#zonesOf}. Fallback 1 uses the same-level neighbour by key range.
 *   <li>ZoneKV: {@code level} (absolute, not relative to RocksDB's base level) picks the lifetime
 *       class (logs, L0+L1, then one class per level), {@code kind} separates logs.
 * </ul>
 *
 * @param fileId the file system's id of the file (stable across renames)
 * @param kind what the file is, usually {@link FileKind#fromName}
 * @param lifetime the write-lifetime hint RocksDB set on the file
 * @param level LSM level the file is written to, if known (L0 for flushes)
 * @param jobId RocksDB flush/compaction job id, if known; correlates outputs of one job
 * @param expectedSize bytes the file (or, for {@code GC_MIGRATION}, the extent) will need, if known
 * @param keyRange user-key range of the file, if known
 * @param compactionInputs file ids of the compaction's inputs; empty for flushes or if unknown
 * @param purpose why a zone is needed
 */
public record AllocationRequest(
    long fileId,
    FileKind kind,
    WriteLifetime lifetime,
    OptionalInt level,
    OptionalInt jobId,
    OptionalLong expectedSize,
    Optional<KeyRange> keyRange,
    List<Long> compactionInputs,
    AllocationPurpose purpose) {

  /** Validates and freezes the request. */
  public AllocationRequest {
    if (fileId < 0) {
      throw new IllegalArgumentException("file id must be >= 0, not " + fileId);
    }
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(lifetime, "lifetime");
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(expectedSize, "expectedSize");
    Objects.requireNonNull(keyRange, "keyRange");
    Objects.requireNonNull(purpose, "purpose");
    if (level.isPresent() && level.getAsInt() < 0) {
      throw new IllegalArgumentException("level must be >= 0, not " + level.getAsInt());
    }
    if (jobId.isPresent() && jobId.getAsInt() < 0) {
      throw new IllegalArgumentException("job id must be >= 0, not " + jobId.getAsInt());
    }
    if (expectedSize.isPresent() && expectedSize.getAsLong() < 0) {
      throw new IllegalArgumentException(
          "expected size must be >= 0 bytes, not " + expectedSize.getAsLong());
    }
    compactionInputs = List.copyOf(Objects.requireNonNull(compactionInputs, "compactionInputs"));
  }

  /** A request builder for file {@code fileId} of kind {@code kind}, with no other hints set. */
  public static Builder builder(long fileId, FileKind kind) {
    return new Builder(fileId, kind);
  }

  /**
   * A {@link AllocationPurpose#FILE_WRITE} request for the RocksDB file called {@code fileName}
   * (kind from {@link FileKind#fromName}) with RocksDB's {@code lifetime} hint.
   */
  public static AllocationRequest forFile(long fileId, String fileName, WriteLifetime lifetime) {
    return builder(fileId, FileKind.fromName(fileName)).lifetime(lifetime).build();
  }

  /** A builder starting from this request: change what differs, then {@code build()}. */
  public Builder toBuilder() {
    Builder b = new Builder(fileId, kind);
    b.lifetime = lifetime;
    b.level = level;
    b.jobId = jobId;
    b.expectedSize = expectedSize;
    b.keyRange = keyRange;
    b.compactionInputs = compactionInputs;
    b.purpose = purpose;
    return b;
  }

  /** This request with another lifetime (a policy's own reading of the file, say). */
  public AllocationRequest withLifetime(WriteLifetime lifetime) {
    return toBuilder().lifetime(lifetime).build();
  }

  /** This request for another purpose. */
  public AllocationRequest withPurpose(AllocationPurpose purpose) {
    return toBuilder().purpose(purpose).build();
  }

  /** Assembles an {@link AllocationRequest}; unset hints stay empty. */
  public static final class Builder {
    private final long fileId;
    private final FileKind kind;
    private WriteLifetime lifetime = WriteLifetime.NOT_SET;
    private OptionalInt level = OptionalInt.empty();
    private OptionalInt jobId = OptionalInt.empty();
    private OptionalLong expectedSize = OptionalLong.empty();
    private Optional<KeyRange> keyRange = Optional.empty();
    private List<Long> compactionInputs = List.of();
    private AllocationPurpose purpose = AllocationPurpose.FILE_WRITE;

    private Builder(long fileId, FileKind kind) {
      this.fileId = fileId;
      this.kind = kind;
    }

    public Builder lifetime(WriteLifetime lifetime) {
      this.lifetime = lifetime;
      return this;
    }

    public Builder level(int level) {
      this.level = OptionalInt.of(level);
      return this;
    }

    public Builder jobId(int jobId) {
      this.jobId = OptionalInt.of(jobId);
      return this;
    }

    public Builder expectedSize(long bytes) {
      this.expectedSize = OptionalLong.of(bytes);
      return this;
    }

    public Builder keyRange(KeyRange keyRange) {
      this.keyRange = Optional.of(keyRange);
      return this;
    }

    public Builder compactionInputs(List<Long> fileIds) {
      this.compactionInputs = fileIds;
      return this;
    }

    public Builder purpose(AllocationPurpose purpose) {
      this.purpose = purpose;
      return this;
    }

    public AllocationRequest build() {
      return new AllocationRequest(
          fileId, kind, lifetime, level, jobId, expectedSize, keyRange, compactionInputs, purpose);
    }
  }
}
