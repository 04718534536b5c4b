/// The program's version, as `--version` prints it and the default User-Agent sends it.
public enum Version {
    public static let current = "0.1.0"
}
