// Selects how the UI talks to the backend. The desktop app serves this file as is
// ("pywebview"); `cashcode serve` answers this path with "http" instead.
window.__CASHCODE_TRANSPORT__ = "pywebview";
