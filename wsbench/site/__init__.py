"""The published site: pages generated from asv results and wsbench records at build time.

Modules, one job each:

- :mod:`wsbench.site.asvfile`: read asv 0.6 result files (format version 2).
- :mod:`wsbench.site.results`: asv results + wsbench records -> typed rows, one per
  (machine, environment, scenario, parameter set).
- :mod:`wsbench.site.frameworks`: the implementations' ``impls/*/meta.toml``.
- :mod:`wsbench.site.render`: markdown for the generated pages.
- :mod:`wsbench.site.pages`: which pages exist, from which inputs.
- :mod:`wsbench.site.mkdocs_hooks`: the mkdocs hook that adds the pages to the build.
"""
