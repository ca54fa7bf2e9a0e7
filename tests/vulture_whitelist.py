"""Names vulture sees as unused inside the package (``vulture wattgpu_lite
tests/vulture_whitelist.py --min-confidence 60``), each kept on purpose and said why: the public
API that notebooks, tests, benchmarks, data scripts or users call, a protocol method Python or a
library calls, a dataclass field read through ``asdict``. Checked by tests/kit/test_dead_code.py.
Add a name only with the reason it stays; a name nobody uses is deleted instead."""

# ruff: noqa  (bare names, as vulture reads a whitelist)

clear_caches  # __init__.py: public: wl.clear_caches() (package docstring)
__getattr__  # __init__.py: PEP 562 module attribute hook (the lazy public names)
__dir__  # __init__.py: PEP 562 module dir() hook
ARG_NAMES  # energy/_paper_generated.py: the generated module's record of its argument order (energy/codegen writes it)
ARG_NAMES  # energy/_physical_generated.py: the generated module's record of its argument order (energy/codegen writes it)
raw_busy_power_w  # energy/backbone/step_power.py: public, the raw busy power at one batch (what peak_batch maximises), used in tests test_backbone_searches, reference_searches; a target of tests/mutation.py
table3_readings  # energy/audit.py: public, used in tests test_energy_paper, test_energy_readme; notebooks 01_energy_model_derivation
reading_counts  # energy/audit.py: public, used in tests test_energy_paper, test_energy_readme; notebooks 01_energy_model_derivation
table4_readings  # energy/audit.py: public, used in tests test_energy_paper; notebooks 01_energy_model_derivation
eta_exponent_readings  # energy/audit.py: public, used in tests test_paper_constants_table; notebooks 01_energy_model_derivation
paper_constants_markdown  # energy/glossary.py: public, used in tests test_paper_constants_table; notebooks 01_energy_model_derivation
_._print_Max  # energy/codegen.py: sympy code printer hook (np.maximum)
_._print_Min  # energy/codegen.py: sympy code printer hook (np.minimum)
paper_constants  # energy/coefficients.py: public, used in tests test_energy_codegen, test_energy_paper …; notebooks 01_energy_model_derivation
equation  # energy/glossary.py: public, used in tests lessons, test_energy_codegen …; notebooks 01_energy_model_derivation, 01b_physical_model
glossary_markdown  # energy/glossary.py: public, used in tests test_course_page, test_energy_glossary; notebooks 01_energy_model_derivation
paper_in_per_token_j  # energy/paper.py: public, used in tests test_energy_paper; notebooks 01_energy_model_derivation
_.to_json  # energy/result.py: public result method (JSON of the result; to_dict is what the CLI uses)
_._repr_html_  # energy/result.py: IPython rich display protocol (a result shows itself in a notebook)
vs_output_tokens  # energy/sweeps.py: public, used in tests test_energy_result; notebooks 02_traffic_breakdown
vs_batch  # energy/sweeps.py: public, used in notebooks 02_traffic_breakdown
vs_model  # energy/sweeps.py: public, used in notebooks 02_traffic_breakdown
vs_num_gpus  # energy/sweeps.py: public, used in notebooks 02_traffic_breakdown
dominant_component  # energy/sweeps.py: public, used in notebooks 02_traffic_breakdown
flops_per_token_layer  # energy/symbolic.py: public, used in tests test_energy_glossary, test_symbolic; notebooks 01_energy_model_derivation
prefill_attention_exact  # energy/symbolic.py: public, used in tests test_energy_glossary, test_symbolic; notebooks 01_energy_model_derivation
energy_request  # energy/symbolic.py: public, used in tests test_energy_glossary, test_symbolic
energy_request_simple  # energy/symbolic.py: public, used in tests test_energy_glossary
crossover_output_length  # energy/symbolic.py: public, used in tests test_symbolic; notebooks 01_energy_model_derivation
bytes_table  # energy/traffic.py: public, used in tests test_accounting, test_energy_glossary; notebooks 02_traffic_breakdown
mdape_table  # energy/validation.py: public, used in tests test_energy_validation; notebooks 01b_physical_model
readable_columns  # face/labels.py: public, used in tests test_style; notebooks 00_start_here, 01_energy_model_derivation …
energy_stack  # face/plots.py: public, used in tests test_energy_plots; notebooks 02_traffic_breakdown
energy_bars  # face/plots.py: public, used in tests test_energy_plots; notebooks 01_energy_model_derivation, 02_traffic_breakdown
measured_vs_estimated  # face/plots.py: public, used in tests test_figure_labels; notebooks 01b_physical_model
fold_maps  # face/plots_folds.py: public, used in tests test_figure_labels, test_plots_wattgpu; notebooks 04_leave_one_out_training
mdape_vs_paper  # face/plots_folds.py: public, used in notebooks 04_leave_one_out_training
sla_choice_curve  # face/plots_selection.py: public, used in tests test_figure_labels; notebooks 05_choosing_a_gpu
coverage_heatmap  # face/plots_wattgpu.py: public, used in tests test_plots_wattgpu; notebooks 03_dataset_and_features
power_scale_invariance  # face/plots_wattgpu.py: public, used in tests test_figure_labels, test_plots_wattgpu; notebooks 03_dataset_and_features
power_vs_load  # face/plots_wattgpu.py: public, used in tests test_figure_labels, test_plots_wattgpu; notebooks 03_dataset_and_features
itl_vs_bandwidth_latency  # face/plots_wattgpu.py: public, used in tests test_figure_labels, test_plots_wattgpu; notebooks 03_dataset_and_features
importance_bars  # face/plots_wattgpu.py: public, used in tests test_plots_wattgpu; notebooks A3_model_choices
predicted_vs_measured  # face/plots_wattgpu.py: public, used in tests test_plots_wattgpu; notebooks 04_leave_one_out_training
runs_power_vs_itl  # face/plots_wattgpu.py: public, used in tests test_figure_labels, test_plots_wattgpu; notebooks 00_start_here
ratio_sentence  # face/prose.py: public, used in tests test_wattgpu_teaching; notebooks 00_start_here, 04_leave_one_out_training
furthest_from_paper  # face/prose.py: public, used in tests test_wattgpu_teaching; notebooks 04_leave_one_out_training
both_ways  # face/prose.py: public, used in tests test_selection_study; notebooks 05_choosing_a_gpu
choice_steps  # face/prose.py: public, used in tests test_selection_study; notebooks 05_choosing_a_gpu
use_style  # face/style.py: public, used in tests test_figure_labels, test_plots_wattgpu …; notebooks 00_start_here, 01_energy_model_derivation …
_.set_locs  # face/style.py: matplotlib Formatter protocol
raw_names_in  # face/style.py: public, used in tests lesson_kernel, test_cli_explain …
energy_explorer  # face/widgets.py: public, used in tests test_energy_widgets; notebooks 02_traffic_breakdown
byo_gpu_form  # face/widgets.py: public, used in notebooks 06_beyond_the_papers
_.disabled  # face/widgets_gpu.py: ipywidgets trait: greys a control out
display_columns  # face/explorer.py: public, used in tests test_display_columns; notebooks 05_choosing_a_gpu, A2_other_harnesses_and_new_hardware
gpu_explorer  # face/widgets_gpu.py: public, used in tests test_cli_rank, test_widgets_gpu_explorer; notebooks dashboard
_.disabled  # face/widgets_gpu.py: ipywidgets trait: greys a control out
_.controls  # face/widgets_gpu.py: the explorer's widgets, kept on it for notebooks and tests to drive
nested  # hybrid/fit/protocol.py: public, used in tests test_cli_every_option, test_datafiles …; benchmarks hybrid_protocol, reproduce; notebooks 00_start_here, 04_leave_one_out_training …; README.md
bytes_per_step  # hybrid/predict/explanation.py: field of a public result record (read through asdict / to_dict / to_json)
flops_per_step  # hybrid/predict/explanation.py: field of a public result record (read through asdict / to_dict / to_json)
busy_fraction  # hybrid/predict/explanation.py: field of a public result record (read through asdict / to_dict / to_json)
widening  # hybrid/predict/explanation.py: field of a public result record (read through asdict / to_dict / to_json)
_.to_json  # hybrid/predict/explanation.py: public result method (JSON of the result; to_dict is what the CLI uses)
_._repr_html_  # hybrid/predict/explanation.py: IPython rich display protocol (a result shows itself in a notebook)
_.save  # hybrid/predict/model.py: public model method (data/scripts rebuild the shipped models through it)
itl_s_interval  # hybrid/predict/prediction.py: field of a public result record (read through asdict / to_dict / to_json)
time_per_token_s  # hybrid/predict/prediction.py: field of a public result record (read through asdict / to_dict / to_json)
time_per_token_s_interval  # hybrid/predict/prediction.py: field of a public result record (read through asdict / to_dict / to_json)
energy_per_token_j_interval  # hybrid/predict/prediction.py: field of a public result record (read through asdict / to_dict / to_json)
busy_fraction  # hybrid/predict/prediction.py: field of a public result record (read through asdict / to_dict / to_json)
_.to_json  # hybrid/predict/prediction.py: public result method (JSON of the result; to_dict is what the CLI uses)
_._repr_html_  # hybrid/predict/prediction.py: IPython rich display protocol (a result shows itself in a notebook)
left_out  # hybrid/report/external.py: public, used in tests test_cli_output; notebooks A2_other_harnesses_and_new_hardware
per_gpu  # hybrid/report/external_per_gpu.py: public, used in tests test_external; benchmarks external_check; notebooks 04_leave_one_out_training; README.md
__getattr__  # runs/measurements.py: PEP 562 module attribute hook (the lazy public names)
ITL_SERVER_APPROX  # runs/schema.py: public, used in data build_runs
coverage  # runs/schema.py: public, used in tests test_hybrid_conformal, test_interval_scores; benchmarks external_check; notebooks 00_start_here, 06_beyond_the_papers
__getattr__  # runs/table.py: PEP 562 module attribute hook (the lazy public names)
_._constructor  # selection/table.py: pandas' DataFrame subclass protocol (a Ranking's derived frames stay Rankings)
LOGO_SOURCE  # selection/sources.py: public, used in data build_logo_predictions
claims  # selection/study.py: public, used in tests lower_bounds, test_selection_study; notebooks 00_start_here, 03_dataset_and_features …
agreement  # selection/study.py: public, used in tests test_selection_study; notebooks A2_other_harnesses_and_new_hardware
sla_steps  # selection/study.py: public, used in tests test_selection_study; notebooks 05_choosing_a_gpu
replica_sweep  # selection/study.py: public, used in tests test_selection_study; notebooks 05_choosing_a_gpu
vendor  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
bus_width_bits  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
l2_cache_mb  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
sm_count  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
tensor_cores  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
transistors_m  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
form_factor  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
int8_tops  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
source_fp8  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
source_interconnect  # specs/gpu.py: GPU spec field (a gpus.csv column, shown by wl.gpus() and GPU.from_spec)
params_b_of  # specs/llm.py: public, used in tests test_catalog; data build_llms
in_wattgpu  # specs/llm.py: public, used in tests test_aliases, test_catalog …; benchmarks predict_speed; data build_llms; notebooks 00_start_here
n_shared_experts  # specs/llm.py: public, used in tests test_hf_configs, test_numeric_fields_and_nested_configs
leakage_table  # wattgpu/leakage.py: public, used in tests test_wattgpu_teaching; notebooks 04_leave_one_out_training
_.save  # wattgpu/predictor.py: public model method (data/scripts rebuild the shipped models through it)
__getattr__  # wattgpu/predictor.py: PEP 562 module attribute hook (the lazy public names)
fold_assignment  # wattgpu/studies.py: public, used in notebooks 04_leave_one_out_training
split_matrix  # wattgpu/studies.py: public, used in tests test_figure_labels, test_plots_wattgpu …; notebooks 04_leave_one_out_training
importance_summary  # wattgpu/studies.py: public, used in notebooks A3_model_choices
grid_search  # wattgpu/studies.py: public, used in notebooks A3_model_choices
compare_regressors  # wattgpu/studies.py: public, used in notebooks A3_model_choices
per_gpu_mdape  # wattgpu/studies.py: public, used in tests test_wattgpu_teaching; notebooks 04_leave_one_out_training
power_w_lo  # hybrid/predict/result.py: a StepResult field, read by name (getattr) for the interval ends and in columns()
power_w_hi  # hybrid/predict/result.py: a StepResult field, read by name (getattr) for the interval ends and in columns()
itl_s_lo  # hybrid/predict/result.py: a StepResult field, read by name (getattr) for the interval ends and in columns()
itl_s_hi  # hybrid/predict/result.py: a StepResult field, read by name (getattr) for the interval ends and in columns()
time_per_token_s_lo  # hybrid/predict/result.py: a StepResult field, read by name (getattr) for the interval ends and in columns()
time_per_token_s_hi  # hybrid/predict/result.py: a StepResult field, read by name (getattr) for the interval ends and in columns()
energy_per_token_j_lo  # hybrid/predict/result.py: a StepResult field, read by name (getattr) for the interval ends and in columns()
energy_per_token_j_hi  # hybrid/predict/result.py: a StepResult field, read by name (getattr) for the interval ends and in columns()
_.DATA_PATH  # runs/measurements.py: public, wl.measurements.DATA_PATH (used in tests test_measurements, test_errors_table)
paired_calibration  # selection/paired.py: public, the calibration table notebook A2 prints (used in tests test_paired)
population  # specs/workload.py: a Workload field (the requests its statistic is over), public, read in tests test_workloads
always_params  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
query_width  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
sliding_share  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
window_tokens  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
kv_bits  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
alpha_j_per_flop  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
e_j_per_bit  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
expert_alpha_j_per_flop  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
link_bytes_s  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
collective_latency_s  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
hop_latency_s  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
expert_dispatch  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
expert_group_s  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
tp_nodes  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
ep_nodes  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
net_bytes_s  # energy/args.py: a physics record's field, read by name through symbol_values (each field binds one sympy symbol of the generated functions)
check_pick  # face/grading.py: public, the check of the dashboard lab sheet (notebooks/dashboard_lab.md; used in tests test_exercises)
leave_one_source_out  # hybrid/report/calibration.py: the protocol's outer loop, run by data/scripts/build_loso_calibration.py (used in tests test_calibration)
per_source  # hybrid/report/external_per_gpu.py: public, the per-source table notebook A2 prints (used in tests test_external)
source_labels  # hybrid/report/external_per_gpu.py: public, the sources' short labels notebook A2 prints (used in tests test_external)
h200_harness_pairs  # hybrid/report/external_per_gpu.py: public, the H200 harness table notebook A2 prints (used in tests test_h200_decode_measurements)
writeable  # energy/backbone/row_arrays.py: numpy's flag (hybrid/predict/correction.py too), set False on the arrays a cache keeps (read-only, so no caller can change a cached entry)
sla_verdict  # selection/verdict.py: public, the scalar SLA rule verdict_array applies to a table at once (its reference in tests test_selection_verdict)
floor_step_s  # hybrid/predict/bounds.py: the named floor s_floor(B) of one decode step, the function the docs cite and the stacked floor_and_per_flop equals (used in tests test_accounting)
all_folds  # hybrid/report/calibrated_folds.py: every fold of the nested intervals, run by data/scripts/build_calibrated_intervals.py
goals  # hybrid/report/calibrated.py: public, the goal counts notebook A2 prints (used in tests test_calibrated)
_.__kwdefaults__  # energy/float_twin.py: a function's keyword defaults, which Python reads at each call (elements_of binds each element's values to its twin)
engines  # specs/engine.py: public, the engines table its errors point to (data/SOURCES.md; used in tests test_serving_inputs)
engine_allreduce_s  # energy/symbolic_parallel.py: the engine's all-reduce term of the derivation, cited by energy/backbone/step_power.py (used in tests test_collective_latency)
achieved_flops  # energy/symbolic_step.py: the achieved FLOP/s term of the derivation, cited by energy/backbone/step_power.py (used in tests test_format_share)
achieved_bandwidth  # energy/symbolic_step.py: the achieved bandwidth term of the derivation (r_stack), cited by energy/backbone/step_power.py (used in tests test_stack_share)
step_time  # energy/symbolic_step.py: one step's time of the derivation (used in tests test_host_time)
per_regime  # hybrid/report/calibrated.py: public, the per-regime table notebook A2 prints (used in tests test_calibrated)
per_regime  # hybrid/report/external_intervals.py: public, the per-regime table notebook A2 prints (used in tests test_external_intervals)
per_quantity  # hybrid/report/external_intervals.py: public, the per-quantity table notebook A2 prints (used in tests test_external_intervals)
shipped_choice  # hybrid/report/calibrated_folds.py: the shipped constants' candidate, chosen by data/scripts/build_hybrid_model.py and benchmarks/hybrid_protocol.py
shipped_cross_source  # hybrid/report/calibrated_folds.py: the shipped model's cross-source interval table, built by data/scripts/build_cross_source_intervals.py and build_hybrid_model.py
constants_without  # hybrid/report/calibrated_folds.py: the constants_by of the shipped build and its nested protocol (the scripts above, notebook 06; used in tests test_fit_small)
