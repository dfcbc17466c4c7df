from wikimem.cli import main

main()
