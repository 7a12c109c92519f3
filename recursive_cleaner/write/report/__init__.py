"""The cleaning report, by concern: its data (``data``), the markdown page (``markdown``,
``sections``), the HTML page (``html`` and the ``html_*`` sections), the whole-file profile it
shows (``profile``) and the JSON form a saved result keeps (``json_io``).

``write.report`` itself is the markdown report's earlier import path: ``ReportData``,
``render_report``, ``write_report``.
"""

from .markdown import ReportData, render_report, write_report

__all__ = ["ReportData", "render_report", "write_report"]
