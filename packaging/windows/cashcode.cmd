@echo off
rem `cashcode` on PATH: the console build of the bundled program (CashCode.exe has no console).
"%~dp0..\cashcode-cli.exe" %*
