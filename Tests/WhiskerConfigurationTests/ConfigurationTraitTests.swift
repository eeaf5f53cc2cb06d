#if !Configuration
import Testing

/// Without the package's Configuration trait the feature modules have no configuration keys, and
/// the key table's tests in this target are not built: the run says so as a skipped test, rather
/// than pass in silence (`make test-lib` runs `swift test --traits TLS,HTTP2,Compression,Configuration`).
@Suite struct ConfigurationTraitTests {
    @Test(.disabled("built without the Configuration trait: the configuration key tests did not run (swift test --traits TLS,HTTP2,Compression,Configuration)"))
    func theKeyTablesTests_NeedTheConfigurationTrait() {}
}
#endif
