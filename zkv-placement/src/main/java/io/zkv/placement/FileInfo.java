package io.zkv.placement;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the file system remembers about a file that already has extents on the device: the hints it
 * was allocated with, the key range made exact once RocksDB reports it. Placement policies that
 * reason about the LSM tree (CAZA: which SSTs of level L+1 overlap a new SST, and which zones hold
 * them) read it through {@link ZoneTableView#file} and {@link ZoneTableView#files()}; LIZA does
 * not.
 *
 * @param fileId the file system's id of the file
 * @param kind what the file is
 * @param lifetime the write-lifetime hint of the file
 * @param level LSM level, if known
 * @param keyRange user-key range, if known
 */
public record FileInfo(
    long fileId,
    FileKind kind,
    WriteLifetime lifetime,
    OptionalInt level,
    Optional<KeyRange> keyRange) {

  /** Validates the record. */
  public FileInfo {
    if (fileId < 0) {
      throw new IllegalArgumentException("file id must be >= 0, not " + fileId);
    }
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(lifetime, "lifetime");
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(keyRange, "keyRange");
    if (level.isPresent() && level.getAsInt() < 0) {
      throw new IllegalArgumentException("level must be >= 0, not " + level.getAsInt());
    }
  }

  /** The hints of {@code request}, as the file system would record them for the file. */
  public static FileInfo of(AllocationRequest request) {
    return new FileInfo(
        request.fileId(), request.kind(), request.lifetime(), request.level(), request.keyRange());
  }

  /** This file with its key range replaced by the exact one RocksDB reported. */
  public FileInfo withKeyRange(KeyRange range) {
    return new FileInfo(fileId, kind, lifetime, level, Optional.of(range));
  }
}
