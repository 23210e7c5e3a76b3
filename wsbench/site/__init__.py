"""The published site: pages generated from asv results and wsbench records at build time.

Modules, one job each:

- :mod:`wsbench.site.asvfile`: read asv 0.6 result files (format version 2).
- :mod:`wsbench.site.results`: asv results + wsbench records -> typed rows, one per
  (machine, environment, scenario, parameter set).
- :mod:`wsbench.site.frameworks`: the implementations' ``impls/*/meta.toml`` (through
  :mod:`wsbench.impls`: configurations and row names as the harness has them).
- :mod:`wsbench.site.markup`: markdown building blocks (escaped cells, tables, tags).
- :mod:`wsbench.site.render`: markdown of the leaderboards and the environment page.
- :mod:`wsbench.site.headline`: a framework's headline figures against its version.
- :mod:`wsbench.site.charts`: those figures as SVG charts (matplotlib).
- :mod:`wsbench.site.framework_pages`: the Frameworks index and one page per framework.
- :mod:`wsbench.site.pages`: which files are generated, from which inputs.
- :mod:`wsbench.site.mkdocs_hooks`: the mkdocs hook that adds the pages to the build.
"""
