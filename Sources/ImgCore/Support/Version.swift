/// The program's version, as `--version` prints it and the default User-Agent sends it. The VERSION file at the
/// top of the repository is its one source: `make version` writes it here and into the man page's title line, and
/// VersionTests fails when either differs from VERSION; `make deb` names the package from VERSION.
public enum Version {
    public static let current = "0.1.0"
}
