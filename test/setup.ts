// With CI=true, ink-testing-library's frames go blank after unmount; tests read frames as a user would.
delete process.env['CI'];
process.env['FORCE_COLOR'] = '0';
