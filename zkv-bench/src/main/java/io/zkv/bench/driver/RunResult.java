package io.zkv.bench.driver;

import java.util.List;

/**
 * One run of one configuration: every phase in order.
 *
 * @param config the configuration's label
 * @param repeat which repetition (1-based)
 * @param phases results in run order
 * @param notes what the run did besides measuring (e.g. an unmeasured prefill)
 */
public record RunResult(String config, int repeat, List<PhaseResult> phases, List<String> notes) {}
