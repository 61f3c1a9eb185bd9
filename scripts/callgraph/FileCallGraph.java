import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The native sources' call graph by file, from gcc's {@code -fcallgraph-info} output (one {@code
 * .ci} file per translation unit; scripts/c-call-graph.sh makes them): which file calls which,
 * through which functions, and every circle of files that call each other (strongly connected
 * components). Direct calls only: a call through a function pointer (a backend table, a policy
 * call-out) is the way one layer reaches the one above it without knowing it, and is not an edge.
 * Functions defined in headers (static inline) belong to the header and are left out.
 *
 * <p>Usage: {@code java FileCallGraph.java ROOT [--check] CI_FILE...}; prints paths relative to
 * ROOT; with --check exits 1 when there is a circle.
 */
public final class FileCallGraph {
  private static final Pattern NODE =
      Pattern.compile(
          "^node: \\{ title: \"([^\"]+)\" label: \"([^\\\\\"]+)\\\\n([^\"]+):\\d+:\\d+\"(.*)\\}");
  private static final Pattern EDGE =
      Pattern.compile("^edge: \\{ sourcename: \"([^\"]+)\" targetname: \"([^\"]+)\"");

  private record Node(String name, String file, boolean external) {}

  public static void main(String[] args) throws IOException {
    String root = Path.of(args[0]).toAbsolutePath().normalize() + "/";
    boolean check = args.length > 1 && args[1].equals("--check");
    List<Path> units = new ArrayList<>();
    for (int i = check ? 2 : 1; i < args.length; i++) {
      units.add(Path.of(args[i]));
    }
    Map<String, String> definedIn = new HashMap<>(); // external function name -> its file
    List<Map<String, Node>> nodesByUnit = new ArrayList<>();
    List<List<String[]>> edgesByUnit = new ArrayList<>();
    for (Path unit : units) {
      Map<String, Node> nodes = new HashMap<>();
      List<String[]> edges = new ArrayList<>();
      for (String line : Files.readAllLines(unit)) {
        Matcher n = NODE.matcher(line);
        if (n.find()) {
          Node node =
              new Node(n.group(2), relative(root, n.group(3)), n.group(4).contains("ellipse"));
          nodes.put(n.group(1), node);
          if (!node.external() && !n.group(1).contains(":") && isSource(node.file())) {
            definedIn.put(node.name(), node.file());
          }
          continue;
        }
        Matcher e = EDGE.matcher(line);
        if (e.find()) {
          edges.add(new String[] {e.group(1), e.group(2)});
        }
      }
      nodesByUnit.add(nodes);
      edgesByUnit.add(edges);
    }
    Map<String, Map<String, TreeSet<String>>> calls = new TreeMap<>(); // file -> file -> examples
    for (int u = 0; u < units.size(); u++) {
      Map<String, Node> nodes = nodesByUnit.get(u);
      for (String[] edge : edgesByUnit.get(u)) {
        Node from = nodes.get(edge[0]);
        Node to = nodes.get(edge[1]);
        if (from == null || to == null || from.external() || !isSource(from.file())) {
          continue;
        }
        String target = to.external() ? definedIn.get(to.name()) : to.file();
        if (target == null || target.equals(from.file()) || !isSource(target)) {
          continue;
        }
        calls
            .computeIfAbsent(from.file(), k -> new TreeMap<>())
            .computeIfAbsent(target, k -> new TreeSet<>())
            .add(from.name() + " -> " + to.name());
      }
    }
    for (var from : calls.entrySet()) {
      for (var to : from.getValue().entrySet()) {
        System.out.println(
            from.getKey() + " -> " + to.getKey() + "  (" + examples(to.getValue()) + ")");
      }
    }
    List<List<String>> circles = circles(calls);
    System.out.println();
    if (circles.isEmpty()) {
      System.out.println("no circles: calls between files run one way");
    }
    for (List<String> c : circles) {
      System.out.println("circle of " + c.size() + " files: " + String.join(", ", c));
    }
    if (check && !circles.isEmpty()) {
      System.exit(1);
    }
  }

  private static boolean isSource(String file) {
    return file.endsWith(".c") || file.endsWith(".cc");
  }

  private static String relative(String root, String file) {
    String f = Path.of(file).toAbsolutePath().normalize().toString();
    return f.startsWith(root) ? f.substring(root.length()) : f;
  }

  private static String examples(TreeSet<String> calls) {
    List<String> first = new ArrayList<>(calls).subList(0, Math.min(3, calls.size()));
    return String.join(", ", first)
        + (calls.size() > 3 ? ", +" + (calls.size() - 3) + " more" : "");
  }

  /** Tarjan's strongly connected components with more than one file, each sorted. */
  private static List<List<String>> circles(Map<String, Map<String, TreeSet<String>>> calls) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    List<List<String>> out = new ArrayList<>();
    TreeSet<String> files = new TreeSet<>(calls.keySet());
    calls.values().forEach(m -> files.addAll(m.keySet()));
    int[] counter = {0};
    for (String f : files) {
      if (!index.containsKey(f)) {
        connect(f, calls, index, low, stack, out, counter);
      }
    }
    return out;
  }

  private static void connect(
      String v,
      Map<String, Map<String, TreeSet<String>>> calls,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      List<List<String>> out,
      int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]++);
    stack.push(v);
    for (String w : calls.getOrDefault(v, Map.of()).keySet()) {
      if (!index.containsKey(w)) {
        connect(w, calls, index, low, stack, out, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (stack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      List<String> component = new ArrayList<>();
      String w;
      do {
        w = stack.pop();
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        component.sort(null);
        out.add(component);
      }
    }
  }
}
