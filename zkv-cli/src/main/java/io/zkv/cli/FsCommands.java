package io.zkv.cli;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ProfileGeometry;
import io.zkv.device.Zone;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.fs.FsFile;
import io.zkv.fs.FsSuperblock;
import io.zkv.fs.MetaZone;
import io.zkv.fs.NotFormattedException;
import io.zkv.fs.ZoneFsInspector;
import io.zkv.fs.ZoneUsage;
import io.zkv.placement.FileKind;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The file-system commands of the {@code zkv} command line, like ZenFS's tool: mkfs, ls, df, zones,
 * dump and fsck. All but mkfs mount read-only and change nothing.
 */
final class FsCommands {
  private FsCommands() {}

  static List<ZkvCommand> all() {
    return List.of(new Mkfs(), new Ls(), new Df(), new Zones(), new Dump(), new Fsck());
  }

  static final Option DEVICE =
      Option.of(
          "device",
          "URI",
          Option.REQUIRED,
          "the device: emu:/path/dev.zkvemu[?profile=NAME], nvme:/dev/ngXnY, zbd:/dev/nvmeXnY or"
              + " plmarray:... (docs/device.md)");

  /** The profile an emu: URI names ({@code instant} when it names none). */
  static String uriProfile(String uri) {
    int q = uri.indexOf('?');
    if (q >= 0) {
      for (String kv : uri.substring(q + 1).split("&")) {
        if (kv.startsWith("profile=")) {
          return kv.substring("profile=".length());
        }
      }
    }
    return "instant";
  }

  private static String deviceUri(Arguments args) {
    String uri = args.string("device", null);
    if (uri == null) {
      throw new Arguments.UsageException("--device is required (e.g. emu:/path/dev.zkvemu)");
    }
    return uri;
  }

  /**
   * Opens --device; a URI the device layer refuses (unknown scheme or profile) is a usage error.
   */
  private static ZonedDevice openDevice(Arguments args) throws ZonedDeviceException {
    return openUri(deviceUri(args));
  }

  static ZonedDevice openUri(String uri) throws ZonedDeviceException {
    try {
      return ZonedDevice.open(uri);
    } catch (ZonedDeviceException e) {
      if (e.code() == -22) { // EINVAL: the URI itself is wrong, not the device
        throw new Arguments.UsageException(e.getMessage());
      }
      throw e;
    }
  }

  private static String mib(long bytes) {
    return String.format("%.1f MiB", bytes / 1048576.0);
  }

  /** Runs `body` on a read-only mount of the device named by --device. */
  private abstract static class InspectingCommand implements ZkvCommand {
    @Override
    public List<Option> options() {
      return List.of(DEVICE);
    }

    @Override
    public int run(Arguments args, PrintStream out) throws Exception {
      try (ZonedDevice dev = openDevice(args)) {
        options(args);
        args.requireAllUsed();
        try (ZoneFsInspector fs = ZoneFsInspector.open(dev)) {
          return body(dev, fs, out);
        }
      }
    }

    void options(Arguments args) {}

    abstract int body(ZonedDevice dev, ZoneFsInspector fs, PrintStream out) throws Exception;
  }

  static final class Mkfs implements ZkvCommand {
    @Override
    public String name() {
      return "mkfs";
    }

    @Override
    public String summary() {
      return "format a device with the zone file system (creates an emulated device if asked)";
    }

    @Override
    public List<Option> options() {
      return List.of(
          DEVICE,
          Option.flag("force", "erase an existing or damaged file system"),
          Option.of("meta-zones", "N", "3", "zones for the metadata log (2-8)"),
          Option.of(
              "zones",
              "N",
              null,
              "create a missing emu: device file with N zones (without it the device must exist)"),
          Option.of(
              "geometry",
              "NAME",
              "the URI's profile",
              "default geometry for what is not given: "
                  + String.join(", ", ProfileGeometry.names())),
          Option.of("zone-size", "S", "the geometry's", "zone size (K/M/G suffixes)"),
          Option.of("zone-cap", "C", "the geometry's", "zone capacity, at most the zone size"),
          Option.of("max-open", "N", "the geometry's", "open-zone limit, 0 = none, else >= 4"),
          Option.of("max-active", "N", "the geometry's", "active-zone limit, 0 = none, else >= 3"),
          Option.of("zasl", "Z", "the geometry's", "zone append size limit (>= 4K)"));
    }

    @Override
    public String notes() {
      return "zkv needs at least meta zones + 3 zones. The instant profile's geometry: 64M zones,"
          + " 48M capacity, max open/active 14, ZASL 1M. To create an emulated device:\n"
          + "  zkv mkfs --device emu:/tmp/dev.zkvemu --zones 64";
    }

    @Override
    public int run(Arguments args, PrintStream out) throws Exception {
      String uri = deviceUri(args);
      boolean force = args.flag("force", false);
      int metaZones = (int) args.number("meta-zones", 3, 2, 8);
      long zones = args.number("zones", 0, 0, 1 << 20);
      String geometry = args.string("geometry", uriProfile(uri));
      if (!ProfileGeometry.known(geometry)) {
        throw new Arguments.UsageException(
            "no default geometry '"
                + geometry
                + "' (known: "
                + String.join(", ", ProfileGeometry.names())
                + ")");
      }
      long givenSize = args.number("zone-size", 0, 0, 1L << 40);
      long givenCap = args.number("zone-cap", 0, 0, 1L << 40);
      DeviceGeometry base =
          ProfileGeometry.of(geometry, (int) Math.max(1, zones), givenSize, givenCap);
      long zoneSize = base.zoneSize();
      long zoneCap = base.zoneCapacity();
      int maxOpen = (int) args.number("max-open", base.maxOpen(), 0, 1 << 20);
      int maxActive = (int) args.number("max-active", base.maxActive(), 0, 1 << 20);
      int zasl = (int) args.number("zasl", base.zasl(), 4096, 1 << 30);
      args.requireAllUsed();
      Path created = null;
      if (zones > 0) {
        String emu = EmulatedDevice.composedUri(uri); // plmarray: composes an emu: device
        if (!emu.startsWith("emu:") || emu.contains(",")) {
          throw new Arguments.UsageException(
              "--zones (creating a device) works for emu: devices (and plmarray: over one) only;"
                  + " the devices a plmarray: lists, one per set, must exist");
        }
        Path file = Path.of(emu.substring(4).split("\\?", 2)[0]);
        if (Files.exists(file)) {
          throw new Arguments.UsageException(
              file + " exists; omit the geometry options to format it");
        }
        EmulatedDevice.format(
            file, DeviceGeometry.of((int) zones, zoneSize, zoneCap, maxOpen, maxActive, zasl));
        created = file;
      }
      boolean done = false;
      try {
        int rc = format(uri, force, metaZones, out);
        done = rc == 0;
        if (done && created != null) {
          out.println("created emulated device " + created);
        }
        return rc;
      } finally {
        if (!done && created != null) {
          Files.deleteIfExists(created); // a failed mkfs leaves no half-made device behind
        }
      }
    }

    private static int format(String uri, boolean force, int metaZones, PrintStream out)
        throws ZonedDeviceException {
      String emu = EmulatedDevice.composedUri(uri);
      if (emu.startsWith("emu:") && !emu.contains(",")) {
        Path file = Path.of(emu.substring(4).split("\\?", 2)[0]);
        if (!Files.exists(file)) {
          throw new Arguments.UsageException(
              file
                  + " does not exist; add --zones N (and optionally --zone-size, --zone-cap) to"
                  + " create it, e.g. zkv mkfs --device "
                  + uri
                  + " --zones 64");
        }
      }
      try (ZonedDevice dev = openUri(uri)) {
        if (!force) {
          try (ZoneFsInspector existing = ZoneFsInspector.open(dev)) {
            out.println(
                "zkv mkfs: "
                    + uri
                    + " already holds a zkv file system with "
                    + existing.files().size()
                    + " file(s); pass --force to erase it");
            return 1;
          } catch (NotFormattedException empty) {
            // no file system yet: nothing to protect
          } catch (ZonedDeviceException unmountable) { // not merely empty: protect it
            out.println(
                "zkv mkfs: "
                    + uri
                    + " holds data that does not mount as a zkv file system ("
                    + unmountable.getMessage()
                    + "); `zkv fsck` tells more; pass --force to erase it");
            return 1;
          }
        }
        try {
          ZoneFsInspector.mkfs(dev, metaZones);
        } catch (ZonedDeviceException e) {
          if (e.code() == -22) { // EINVAL: a geometry the file system cannot use
            throw new Arguments.UsageException(e.getMessage());
          }
          throw e;
        }
        out.println("formatted " + uri + ": " + dev.geometry() + ", " + metaZones + " meta zones");
      }
      return 0;
    }
  }

  static final class Ls extends InspectingCommand {
    private String prefix = "";

    @Override
    public String name() {
      return "ls";
    }

    @Override
    public String summary() {
      return "list the files: size, extents, lifetime hint, name";
    }

    @Override
    public List<Option> options() {
      return List.of(
          DEVICE,
          Option.of("prefix", "PATH", "every file", "only names starting with PATH, e.g. /db/"));
    }

    @Override
    void options(Arguments args) {
      prefix = args.string("prefix", "");
    }

    @Override
    int body(ZonedDevice dev, ZoneFsInspector fs, PrintStream out) {
      out.printf("%14s %8s %9s  %s%n", "size", "extents", "lifetime", "name");
      int n = 0;
      for (FsFile f : fs.files()) {
        for (String name : f.names()) {
          if (name.startsWith(prefix)) {
            out.printf("%,14d %8d %9d  %s%n", f.size(), f.extents().size(), f.lifetime(), name);
            n++;
          }
        }
      }
      out.println(n + " file(s)");
      return 0;
    }
  }

  static final class Df extends InspectingCommand {
    private boolean bytes;

    @Override
    public String name() {
      return "df";
    }

    @Override
    public String summary() {
      return "space: capacity, used, live, free, reclaimable, space amplification; placement"
          + " decisions, overrides and garbage collection since format";
    }

    @Override
    public List<Option> options() {
      return List.of(DEVICE, Option.flag("bytes", "exact byte counts instead of MiB"));
    }

    @Override
    void options(Arguments args) {
      bytes = args.flag("bytes", false);
    }

    @Override
    int body(ZonedDevice dev, ZoneFsInspector fs, PrintStream out) {
      long capacity = 0, written = 0, live = 0, garbage = 0;
      for (ZoneUsage z : fs.zones()) {
        if (!z.meta()) {
          capacity += z.capacity();
          written += z.written();
          live += z.liveBytes();
          garbage += z.garbage();
        }
      }
      out.printf("capacity     %s (data zones)%n", size(capacity));
      out.printf("used         %s (written below the write pointers)%n", size(written));
      out.printf("live         %s (file data)%n", size(live));
      out.printf("free         %s%n", size(capacity - written));
      out.printf("reclaimable  %s (reset or GC gets it back)%n", size(garbage));
      out.printf(
          "space amplification %.2f (used / live)%n", live == 0 ? 1.0 : (double) written / live);
      io.zkv.fs.ZoneStats st = fs.stats();
      out.printf(
          "placement    %d decisions by the policy, %d overridden by the file system (%d fallback"
              + " allocations, %d zones taken from idle writers, the rest GC's) since format, as of"
              + " the last log roll or clean unmount%n",
          st.policyDecisionsTotal(),
          st.policyOverridesTotal(),
          st.fallbackAllocationsTotal(),
          st.zoneStealsTotal());
      StringBuilder reasons = new StringBuilder();
      for (var e : st.overridesTotal().entrySet()) {
        if (e.getValue() > 0) {
          reasons.append(reasons.length() == 0 ? "" : ", ");
          reasons.append(e.getKey().description()).append(' ').append(e.getValue());
        }
      }
      out.printf(
          "overrides    %s (by reason, since format)%n", reasons.length() == 0 ? "none" : reasons);
      io.zkv.fs.GcTotals gc = st.gcTotals();
      out.printf(
          "GC           %d runs emptied %d zones copying %s; %d zone resets, %s without a copy; %d"
              + " zones finished (since format, as of the last log roll or clean unmount)%n",
          gc.runs(),
          gc.zones(),
          size(gc.bytes()),
          gc.resets(),
          gc.resets() == 0
              ? "none"
              : String.format(
                  java.util.Locale.ROOT, "%.1f%%", 100.0 * gc.resetsWithoutCopy() / gc.resets()),
          gc.finishes());
      return 0;
    }

    private String size(long n) {
      return bytes ? n + " bytes" : mib(n);
    }
  }

  /**
   * Whether a file is one of RocksDB's WALs: by its name, the rule the file system writes them as
   * chunks by (RocksDB's {@code NNNNNN.log}; io.zkv.placement.FileKind).
   */
  static boolean isWal(FsFile f) {
    return !f.names().isEmpty() && FileKind.fromName(f.names().get(0)) == FileKind.WAL;
  }

  /** The zones holding WAL data. */
  static Set<Integer> walZones(ZoneFsInspector fs) {
    long zoneSize = fs.superblock().zoneSize();
    Set<Integer> zones = new TreeSet<>();
    for (FsFile f : fs.files()) {
      if (isWal(f)) {
        for (FsFile.Extent e : f.extents()) {
          zones.add((int) (e.start() / zoneSize));
        }
      }
    }
    return zones;
  }

  /**
   * A WAL's chunks as JSON ({@code "wal": true, "chunks": [...]}), empty for other files: each
   * extent whose data starts 32 bytes after a block boundary is a chunk's data (its header is the
   * 32 bytes before, docs/formats/zone-fs.md); GC's copies are plain, block-aligned data.
   */
  static String walChunks(FsFile f, int blockSize) {
    if (!isWal(f)) {
      return "";
    }
    int header = 32;
    String chunks =
        f.extents().stream()
            .filter(e -> e.start() % blockSize == header)
            .map(
                e ->
                    String.format(
                        "{\"header\": %d, \"data\": %d, \"length\": %d, \"deviceBytes\": %d}",
                        e.start() - header,
                        e.start(),
                        e.length(),
                        (header + e.length() + blockSize - 1) / blockSize * blockSize))
            .collect(Collectors.joining(", "));
    return " \"wal\": true, \"chunks\": [" + chunks + "],";
  }

  static final class Zones extends InspectingCommand {
    @Override
    public String name() {
      return "zones";
    }

    @Override
    public String summary() {
      return "a table of zones: condition, written, live, garbage, lifetime, role (metadata, wal,"
          + " leased, data)";
    }

    @Override
    int body(ZonedDevice dev, ZoneFsInspector fs, PrintStream out) throws Exception {
      Map<Integer, Zone> report =
          dev.report().stream().collect(Collectors.toMap(Zone::index, Function.identity()));
      out.printf(
          "%6s %-16s %12s %12s %12s %9s %s%n",
          "zone", "condition", "written", "live", "garbage", "lifetime", "role");
      Set<Integer> wal = walZones(fs);
      for (ZoneUsage z : fs.zones()) {
        out.printf(
            "%6d %-16s %,12d %,12d %,12d %9d %s%n",
            z.index(),
            report.get(z.index()).condition(),
            z.written(),
            z.liveBytes(),
            z.garbage(),
            z.lifetime(),
            z.meta()
                ? "metadata"
                : z.leased() ? "leased (WALTZ log)" : wal.contains(z.index()) ? "wal" : "data");
      }
      return 0;
    }
  }

  static final class Dump extends InspectingCommand {
    @Override
    public String name() {
      return "dump";
    }

    @Override
    public String summary() {
      return "everything the file system knows, as JSON";
    }

    @Override
    public List<Option> options() {
      return List.of(
          DEVICE, Option.flag("json", "JSON output (the only format; accepted for clarity)"));
    }

    @Override
    void options(Arguments args) {
      args.flag("json", true); // JSON is the only format
    }

    @Override
    int body(ZonedDevice dev, ZoneFsInspector fs, PrintStream out) {
      FsSuperblock sb = fs.superblock();
      StringBuilder b = new StringBuilder("{\n  \"superblock\": ");
      b.append(
          String.format(
              "{\"uuid\": \"%s\", \"version\": %d, \"sequence\": %d, \"blockSize\": %d, \"zones\": %d,"
                  + " \"zoneSize\": %d, \"zoneCapacity\": %d, \"metaZones\": %d},%n",
              sb.uuid(),
              sb.version(),
              sb.sequence(),
              sb.blockSize(),
              sb.zoneCount(),
              sb.zoneSize(),
              sb.zoneCapacity(),
              sb.metaZones()));
      b.append("  \"metaZones\": [");
      b.append(
          fs.metaZones().stream()
              .map(
                  m ->
                      String.format(
                          "{\"zone\": %d, \"state\": \"%s\", \"sequence\": %d, \"problem\": %s}",
                          m.zone(), m.state(), m.sequence(), Json.quote(m.problem())))
              .collect(Collectors.joining(", ")));
      b.append("],\n  \"zones\": [\n");
      b.append(
          fs.zones().stream()
              .map(
                  z ->
                      String.format(
                          "    {\"zone\": %d, \"start\": %d, \"capacity\": %d, \"written\": %d,"
                              + " \"live\": %d, \"lifetime\": %d, \"meta\": %b}",
                          z.index(),
                          z.start(),
                          z.capacity(),
                          z.written(),
                          z.liveBytes(),
                          z.lifetime(),
                          z.meta()))
              .collect(Collectors.joining(",\n")));
      b.append("\n  ],\n  \"files\": [\n");
      b.append(
          fs.files().stream()
              .map(
                  f ->
                      String.format(
                          "    {\"id\": %d, \"names\": [%s], \"size\": %d, \"lifetime\": %d,%s"
                              + " \"extents\": [%s]}",
                          f.id(),
                          f.names().stream().map(Json::quote).collect(Collectors.joining(", ")),
                          f.size(),
                          f.lifetime(),
                          walChunks(f, sb.blockSize()),
                          f.extents().stream()
                              .map(
                                  e ->
                                      "{\"start\": "
                                          + e.start()
                                          + ", \"length\": "
                                          + e.length()
                                          + "}")
                              .collect(Collectors.joining(", "))))
              .collect(Collectors.joining(",\n")));
      b.append("\n  ],\n  \"problems\": [");
      b.append(fs.check().stream().map(Json::quote).collect(Collectors.joining(", ")));
      b.append("]\n}");
      out.println(b);
      return 0;
    }
  }

  static final class Fsck implements ZkvCommand {
    @Override
    public String name() {
      return "fsck";
    }

    @Override
    public String summary() {
      return "check the file system read-only (--verify-data: also every database's SST and WAL"
          + " checksums); exit 0 when clean, 1 when damaged";
    }

    @Override
    public List<Option> options() {
      return List.of(
          DEVICE,
          Option.flag(
              "verify-data",
              "also read every database's SST and WAL files and check their checksums"));
    }

    @Override
    public int run(Arguments args, PrintStream out) throws Exception {
      try (ZonedDevice dev = openDevice(args)) {
        boolean verifyData = args.flag("verify-data", false);
        args.requireAllUsed();
        ZoneFsInspector fs;
        try {
          fs = ZoneFsInspector.open(dev);
        } catch (ZonedDeviceException e) {
          out.println("fsck: cannot mount: " + e.getMessage());
          out.println("fsck: the file system is damaged (nothing was changed)");
          return 1;
        }
        List<String> problems;
        List<String> databases;
        try (fs) {
          for (MetaZone m : fs.metaZones()) {
            out.printf(
                "meta zone %d: %s%s%n",
                m.zone(),
                m.state(),
                m.state() == MetaZone.State.VALID
                    ? " (sequence " + m.sequence() + ")"
                    : m.problem().isEmpty() ? "" : " (" + m.problem() + ")");
          }
          String logEnd = fs.logEnd();
          out.println(
              logEnd.isEmpty()
                  ? "metadata log: ends cleanly"
                  : "metadata log: ends with a "
                      + logEnd
                      + ": a write a crash cut, never acknowledged (not damage)");
          List<FsFile> files = fs.files();
          problems = new ArrayList<>(fs.check());
          databases = DataVerifier.databases(files);
          out.println(files.size() + " file(s), " + problems.size() + " problem(s)");
        }
        if (verifyData) {
          List<String> damaged = DataVerifier.verify(dev, databases);
          out.println(
              databases.size()
                  + " database(s) verified (SST blocks and WAL records), "
                  + damaged.size()
                  + " damaged");
          problems.addAll(damaged);
        }
        problems.forEach(p -> out.println("problem: " + p));
        return problems.isEmpty() ? 0 : 1;
      }
    }
  }
}
