"""``./bench``'s commands: the command line (:mod:`~wsbench.commands.cli`). The top layer:
it parses the arguments and calls the layers below; no argparse namespace goes further
down than the command that parsed it.
"""
