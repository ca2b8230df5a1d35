"""Glue: results/FINDINGS.md and the report's findings and claims pages, from the results tables."""

from pathlib import Path

from lsadyn_workflow.io import atomic_path, load_table, setup_log

from lsadyn.paper.findings import all_key_numbers, claims_html_page, findings_html, findings_markdown

if "snakemake" not in globals():  # run on its own: the job's values from the workflow
    from lsadyn_workflow.mock import mock_snakemake

    snakemake = mock_snakemake("findings")
sm = snakemake
log = setup_log(sm.log[0])
claims = load_table(sm.input.claims, "claims")
tables = {name: load_table(getattr(sm.input, name), kind, min_rows=0)
          for name, kind in (("agreement", "any"), ("disagreements", "any"), ("bifurcation_fit", "bifurcation_fit"),
                             ("stability", "stability_run"), ("highdim", "highdim_run"),
                             ("robustness", "robustness_run"), ("persistence", "persistence_run"),
                             ("offmanifold", "any"), ("continuation", "continuation"),
                             ("usa_oscillation", "usa_oscillation_run"),
                             ("usa_oscillation_growth", "usa_oscillation_growth"),
                              ("atlas", "atlas"), ("exponents", "exponents"), ("basins", "basins"), ("looped", "looped"))}
tables["eps_small"] = sm.params.settings["eps_small"]
legend = Path(sm.input.legend).read_text()
numbers = all_key_numbers(claims, tables)  # the same numbers on both pages: computed once
pages = {sm.output.markdown: findings_markdown(claims, tables, sm.params.settings, numbers),
         sm.output.html: findings_html(claims, tables, sm.params.settings, numbers),
         sm.output.claims_html: claims_html_page(claims, legend)}
for path, text in pages.items():
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
log.info("findings: %d claims rows", len(claims))
