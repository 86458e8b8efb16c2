"""Reports over run folders (issue 6): summaries, comparisons and HTML reports."""
