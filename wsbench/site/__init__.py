"""The published site: pages generated from the results store at build time.

Modules, one job each:

- :mod:`wsbench.site.rows`: one benchmark of a run document -> a row of figures (over the
  server processes with 95 % intervals and spread; secondary figures as medians over the
  windows) through :mod:`wsbench.results.metrics` and :mod:`wsbench.results.stats`.
- :mod:`wsbench.site.results`: the results store (:mod:`wsbench.results.store`) -> the current
  comparison group of every machine (the newest figure of each environment, scenario and
  parameter set), and every run for the history.
- :mod:`wsbench.site.frameworks`: the implementations' ``impls/*/meta.toml`` (through
  :mod:`wsbench.impls`: configurations and row names as the harness has them).
- :mod:`wsbench.site.markup`: markdown building blocks (escaped cells, tables, tags,
  figures with their interval).
- :mod:`wsbench.site.sources`: which runs and settings shown figures come from, in words.
- :mod:`wsbench.site.render`: markdown of the leaderboards (with ranks), one per scenario of
  :mod:`wsbench.scenarios`, each with its own columns and ranked by its own headline figure.
- :mod:`wsbench.site.sweeps`: figures against the number of connections (the many-connection
  scenarios' charts and their JSON data).
- :mod:`wsbench.site.environment`: markdown of the Runs and environment page (with every
  run's downloads and the CSV's columns).
- :mod:`wsbench.site.counts`: instructions per message as a cell and the sentence that says
  what they are (leaderboards, framework pages).
- :mod:`wsbench.site.headline`: a framework's headline figures against its version.
- :mod:`wsbench.site.changes`: significant changes between consecutive releases.
- :mod:`wsbench.site.history`: every run's headline figures night by night, per
  configuration and version, with the runs where the harness, load generator or settings
  changed marked.
- :mod:`wsbench.site.charts`: those figures, and those against the number of connections, as
  SVG charts (matplotlib).
- :mod:`wsbench.site.framework_pages`: the Frameworks index and one page per framework.
- :mod:`wsbench.site.findings`: what the results say (fastest configurations and ties,
  release-to-release changes, the cost of Socket.IO, failures, flagged figures).
- :mod:`wsbench.site.findings_page`: markdown of the Findings page.
- :mod:`wsbench.site.deployment_costs`: what each deployment profile costs against tuned
  (each configuration's figures in a profile as ratios to its tuned ones, with intervals,
  the agreed compression and its ratio), and the answer in sentences: computed once for
  the page and the home page's question.
- :mod:`wsbench.site.deployment_page`: markdown of the What your deployment costs page.
- :mod:`wsbench.site.conformance`: the conformance grades (the store's ``conformance/``
  folder): which document grades which row, where a grade links, the grade beside a name.
- :mod:`wsbench.site.conformance_page`: markdown of the Conformance page and of the case
  report pages.
- :mod:`wsbench.site.profiles`: the CPU profiles (the store's ``profiles/`` folder): which
  profile a configuration shows, its shares of the CPU, top functions and flame graph data,
  and the leaderboards' chart of CPU per message by where it goes.
- :mod:`wsbench.site.profiles_page`: markdown of a framework page's Where the time goes.
- :mod:`wsbench.site.downloads`: every run of the store as JSON and CSV files to download.
- :mod:`wsbench.site.methodology`: the generated parts of the hand-written Methodology page
  (every scenario with its parameter sets, the many-connection settings).
- :mod:`wsbench.site.home`: the home page: per question, the leading configurations as
  a bar chart with intervals, linked to their leaderboards.
- :mod:`wsbench.site.templates`: the pages' Jinja2 templates (``templates/*.md.j2``: outline
  and prose; the statistics' numbers they quote come from :mod:`wsbench.results.stats`).
- :mod:`wsbench.site.interactive`: each chart's data and each leaderboard table's rows in
  the page, for the site's script (``assets/wsbench.js``: interactive charts, sorting,
  filters).
- :mod:`wsbench.site.assets`: the site's script and stylesheet, and the pinned libraries
  (ECharts, tablesort, d3 and d3-flame-graph) bundled into the site from npm.
- :mod:`wsbench.site.chartcache`: rendered SVG charts kept by their data and drawing code.
- :mod:`wsbench.site.pages`: which files are generated, from which inputs.
- :mod:`wsbench.site.mkdocs_hooks`: the mkdocs hook that adds the pages to the build.
"""
