; Inno Setup script for the Windows installer (built by .github/workflows/package-windows.yml):
;   ISCC.exe /DAppVersion=<version from pyproject.toml> packaging\windows\cashcode.iss
; Installs the one-folder bundle (dist\CashCode) per user, adds a Start menu entry, offers a
; desktop icon, puts `cashcode` (the CLI) on the user's PATH and registers "Open with CashCode"
; for .zip Skill files. User data stays in the user's AppData folders, so upgrades keep it.

#ifndef AppVersion
  #error Pass the version: ISCC.exe /DAppVersion=X.Y.Z cashcode.iss
#endif

[Setup]
AppId={{5E1B8D6C-2C1F-4C53-9C7E-CA5EC0DE0001}
AppName=CashCode
AppVersion={#AppVersion}
AppPublisher=CashCode developers
DefaultDirName={localappdata}\Programs\CashCode
DefaultGroupName=CashCode
PrivilegesRequired=lowest
ChangesEnvironment=yes
OutputDir=..\..\dist
OutputBaseFilename=CashCode-{#AppVersion}-setup
SetupIconFile=..\..\resources\icons\cashcode.ico
UninstallDisplayIcon={app}\CashCode.exe
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
ArchitecturesInstallIn64BitMode=x64compatible

[Languages]
Name: "en"; MessagesFile: "compiler:Default.isl"
Name: "zh"; MessagesFile: "compiler:Languages\ChineseSimplified.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"

[Files]
Source: "..\..\dist\CashCode\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs
Source: "cashcode.cmd"; DestDir: "{app}\bin"; Flags: ignoreversion

[Icons]
Name: "{group}\CashCode"; Filename: "{app}\CashCode.exe"
Name: "{group}\{cm:UninstallProgram,CashCode}"; Filename: "{uninstallexe}"
Name: "{userdesktop}\CashCode"; Filename: "{app}\CashCode.exe"; Tasks: desktopicon

[Registry]
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}\bin"; Check: NeedsAddPath(ExpandConstant('{app}\bin'))
Root: HKCU; Subkey: "Software\Classes\Applications\CashCode.exe\shell\open\command"; ValueType: string; ValueData: """{app}\CashCode.exe"" desktop --import-skill ""%1"""; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\.zip\OpenWithList\CashCode.exe"; ValueType: string; ValueData: ""; Flags: uninsdeletekey

[Run]
Filename: "{app}\CashCode.exe"; Description: "{cm:LaunchProgram,CashCode}"; Flags: nowait postinstall skipifsilent

[Code]
const
  WebView2Key = 'SOFTWARE\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}';

function WebView2Installed(): Boolean;
var
  Version: String;
begin
  Result :=
    (RegQueryStringValue(HKLM, 'SOFTWARE\WOW6432Node\Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}', 'pv', Version) and (Version <> '') and (Version <> '0.0.0.0')) or
    (RegQueryStringValue(HKLM, WebView2Key, 'pv', Version) and (Version <> '') and (Version <> '0.0.0.0')) or
    (RegQueryStringValue(HKCU, WebView2Key, 'pv', Version) and (Version <> '') and (Version <> '0.0.0.0'));
end;

function InitializeSetup(): Boolean;
begin
  Result := True;
  if not WebView2Installed() then
  begin
    Result := MsgBox(
      'CashCode shows its window with the Microsoft Edge WebView2 Runtime, which is not installed on this computer.' + #13#10#13#10 +
      'Install it from Microsoft ("Evergreen Bootstrapper" on the WebView2 download page), then start CashCode. ' +
      'Windows 11 includes it; Windows 10 may not.' + #13#10#13#10 +
      'Continue installing CashCode anyway?', mbConfirmation, MB_YESNO) = IDYES;
  end;
end;

function NeedsAddPath(Dir: String): Boolean;
var
  Current: String;
begin
  if not RegQueryStringValue(HKCU, 'Environment', 'Path', Current) then
  begin
    Result := True;
    exit;
  end;
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Current) + ';') = 0;
end;
